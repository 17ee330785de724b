/*
 * Copyright 2026 the mcp-stdio authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *      https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package dev.mcpstdio.core.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.server.StdioServerProcess.StopResult;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.test.TestHost;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many threads sending at once, some lines larger than a pipe's buffer so that direct
 * writes and queued writes mix: every line must arrive whole and exactly once, and a stop
 * in the middle of it must neither cut a line nor hang a sender.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class ConcurrentSendTests {

	private static final int THREADS = 8;

	private static final int MESSAGES = 400;

	private final Fixtures fixtures;

	ConcurrentSendTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	private StdioServerSpec catServer(String name) {
		// cat echoes every line back: each message comes back as it was written
		return SpecDefaults.of(name, "cat")
			.withEnv(Map.of(Fixtures.MARKER, this.fixtures.id()))
			.withShutdown(Fixtures.FAST);
	}

	private static String message(int thread, int i) {
		// every 25th message is larger than the 64 KiB pipe buffer, so its write blocks
		int padding = (i % 25 == 0) ? 100 * 1024 : (i % 7) * 300;
		return "{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"t\":" + thread + ",\"i\":" + i + ",\"pad\":\""
				+ "x".repeat(padding) + "\"}}";
	}

	@Test
	void everyLineArrivesWholeAndOnce() throws Exception {
		Set<String> received = ConcurrentHashMap.newKeySet();
		List<String> duplicates = new ArrayList<>();
		CountDownLatch all = new CountDownLatch(THREADS * MESSAGES);
		StdioServerProcess process = TestHost.shared().start(catServer("cat-many"), (message) -> {
			if (!received.add(message.text())) {
				synchronized (duplicates) {
					duplicates.add(message.text());
				}
			}
			all.countDown();
		});
		ExecutorService pool = Executors.newFixedThreadPool(THREADS);
		try {
			Set<String> sent = ConcurrentHashMap.newKeySet();
			List<Future<?>> senders = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				int thread = t;
				senders.add(pool.submit(() -> {
					for (int i = 0; i < MESSAGES; i++) {
						String message = message(thread, i);
						process.send(message);
						sent.add(message);
					}
					return null;
				}));
			}
			for (Future<?> sender : senders) {
				sender.get(2, TimeUnit.MINUTES);
			}
			assertThat(all.await(1, TimeUnit.MINUTES)).as("all lines echoed").isTrue();
			assertThat(duplicates).isEmpty();
			assertThat(received).hasSize(THREADS * MESSAGES).isEqualTo(new HashSet<>(sent));
		}
		finally {
			pool.shutdownNow();
			process.stop();
		}
		assertNoLineCut(process);
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void stopWhileManyThreadsSendCutsNoLineAndHangsNoSender() throws Exception {
		int sendersStopped = 0;
		for (int round = 0; round < 10; round++) {
			Set<String> sent = ConcurrentHashMap.newKeySet();
			Set<String> received = ConcurrentHashMap.newKeySet();
			StdioServerProcess process = TestHost.shared()
				.start(catServer("cat-stop"), (message) -> received.add(message.text()));
			ExecutorService pool = Executors.newFixedThreadPool(THREADS);
			try {
				sendersStopped += stopWhileSending(process, pool, sent, round);
			}
			finally {
				pool.shutdownNow();
				process.stop();
			}
			// whatever came back was a whole line that was sent: nothing cut, nothing
			// mixed
			assertThat(sent).containsAll(received);
			assertNoLineCut(process);
		}
		// the stops did land in the middle of the sending
		assertThat(sendersStopped).isPositive();
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	/**
	 * Stop the server while every thread of the pool sends to it.
	 * @return how many senders the stop cut short
	 */
	private int stopWhileSending(StdioServerProcess process, ExecutorService pool, Set<String> sent, int round)
			throws Exception {
		int sendersStopped = 0;
		List<Future<Throwable>> senders = new ArrayList<>();
		for (int t = 0; t < THREADS; t++) {
			int thread = t;
			senders.add(pool.submit(() -> {
				try {
					for (int i = 0; i < MESSAGES; i++) {
						String message = message(thread, i);
						process.send(message);
						sent.add(message);
					}
					return null;
				}
				catch (Throwable ex) {
					return ex;
				}
			}));
		}
		Thread.sleep(20 + round * 10);
		StopResult stop = process.stop();
		// cat exits when stdin closes: the drain (in-flight writes) and the close are
		// all it may wait for
		assertThat(stop.duration()).isLessThan(Fixtures.FAST.drain().plus(Fixtures.FAST.stdinClose()).plusSeconds(5));
		for (Future<Throwable> sender : senders) {
			Throwable failure = sender.get(30, TimeUnit.SECONDS);
			if (failure != null) {
				assertThat(failure).isInstanceOf(McpServerNotRunningException.class);
				sendersStopped++;
			}
		}
		return sendersStopped;
	}

	/**
	 * Assert that every line cat echoed was JSON: a cut or interleaved line is not, and
	 * the reader counts it instead of passing it on, so the messages received cannot show
	 * it.
	 */
	private static void assertNoLineCut(StdioServerProcess process) {
		assertThat(process.pipes.awaitStdoutEnd(10_000)).as("stdout read to its end").isTrue();
		assertThat(process.pipes.nonJsonLines()).as("lines that were not JSON").isZero();
	}

}

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

package dev.mcpstdio.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.mcpstdio.McpServerExitedException;
import dev.mcpstdio.test.Fixtures;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The race from the field: many threads start a server that exits at once, send to it and
 * stop it. Every send must end, and end with the exit's facts.
 *
 * @author mcp-stdio authors
 */
class StartSendStopRaceTests {

	private static final int THREADS = 16;

	private static final int ROUNDS = Integer.getInteger("mcp.stdio.race.rounds", 200);

	@Test
	void sixteenThreadsStartSendAndStopAServerThatExitsAtOnce() throws Exception {
		Fixtures fixtures = new Fixtures();
		AtomicInteger exitedWithCode3 = new AtomicInteger();
		AtomicInteger sendsThatWereWritten = new AtomicInteger();
		AtomicLong slowestStopNanos = new AtomicLong();
		AtomicLong totalStopNanos = new AtomicLong();
		ConcurrentLinkedQueue<Throwable> otherErrors = new ConcurrentLinkedQueue<>();
		ExecutorService pool = Executors.newFixedThreadPool(THREADS);
		CountDownLatch go = new CountDownLatch(1);
		List<Future<?>> workers = new ArrayList<>();
		for (int t = 0; t < THREADS; t++) {
			int thread = t;
			workers.add(pool.submit(() -> {
				go.await();
				for (int round = 0; round < ROUNDS; round++) {
					StdioServerSpec spec = StdioServerSpec.of("race", "sh", Fixtures.script("instant-exit.sh"))
						.withEnv(Map.of(Fixtures.MARKER, fixtures.id()))
						.withShutdown(Fixtures.FAST);
					StdioServerProcess process = ServerHost.shared().start(spec, MessageListener.NONE);
					String id = thread + "-" + round;
					try {
						process.request(id, "{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"method\":\"initialize\"}")
							.get(10, TimeUnit.SECONDS);
						sendsThatWereWritten.incrementAndGet();
						otherErrors.add(new AssertionError("request " + id + " was answered"));
					}
					catch (ExecutionException ex) {
						Throwable cause = ex.getCause();
						if (cause instanceof McpServerExitedException exited && exited.exitCode() == 3
								&& exited.getMessage().contains("exit code 3")
								&& exited.stderrTail().contains("boom: missing dependency")) {
							exitedWithCode3.incrementAndGet();
						}
						else {
							otherErrors.add(cause);
						}
					}
					catch (TimeoutException ex) {
						otherErrors.add(new AssertionError("request " + id + " hung"));
					}
					long begin = System.nanoTime();
					process.stop();
					long took = System.nanoTime() - begin;
					totalStopNanos.addAndGet(took);
					slowestStopNanos.accumulateAndGet(took, Math::max);
				}
				return null;
			}));
		}
		long begin = System.nanoTime();
		go.countDown();
		int hung = 0;
		for (Future<?> worker : workers) {
			try {
				worker.get(10, TimeUnit.MINUTES);
			}
			catch (TimeoutException ex) {
				hung++;
			}
		}
		pool.shutdownNow();
		long rounds = (long) THREADS * ROUNDS;
		System.out.printf(
				"race: %d rounds in %d ms, %d hung threads, %d McpServerExitedException(3), "
						+ "%d other errors, stop mean %.2f ms, slowest %.1f ms%n",
				rounds, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin), hung, exitedWithCode3.get(),
				otherErrors.size(), totalStopNanos.get() / 1e6 / rounds, slowestStopNanos.get() / 1e6);
		assertThat(hung).isZero();
		assertThat(otherErrors).isEmpty();
		assertThat(exitedWithCode3.get()).isEqualTo(THREADS * ROUNDS);
		fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

}

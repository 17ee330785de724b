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
import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.TestHost;

/**
 * The race from the field: threads that each start a server which exits at once, send it
 * a request and stop it, round after round. Run by its test, which asserts, and by the
 * bench module, which prints the figures.
 *
 * @author mcp-stdio authors
 */
public final class StartSendStopRace {

	private StartSendStopRace() {
	}

	/**
	 * Run the race.
	 * @param fixtures the marker of the processes
	 * @param threads how many threads race
	 * @param rounds how many rounds each runs
	 * @return what came of it
	 * @throws InterruptedException if interrupted
	 */
	public static Outcome run(Fixtures fixtures, int threads, int rounds) throws InterruptedException {
		AtomicInteger exitedWithCode3 = new AtomicInteger();
		AtomicLong slowestStopNanos = new AtomicLong();
		AtomicLong totalStopNanos = new AtomicLong();
		ConcurrentLinkedQueue<Throwable> otherErrors = new ConcurrentLinkedQueue<>();
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			CountDownLatch go = new CountDownLatch(1);
			List<Future<?>> workers = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int thread = t;
				workers.add(pool.submit(() -> {
					if (!go.await(1, TimeUnit.MINUTES)) {
						throw new IllegalStateException("the race did not start");
					}
					for (int round = 0; round < rounds; round++) {
						StdioServerSpec spec = SpecDefaults.of("race", "sh", Fixtures.script("instant-exit.sh"))
							.withEnv(Map.of(Fixtures.MARKER, fixtures.id()))
							.withShutdown(Fixtures.FAST);
						StdioServerProcess process = TestHost.shared().start(spec, MessageListener.NONE);
						String id = thread + "-" + round;
						try {
							process.request(id, "{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"method\":\"initialize\"}")
								.get(10, TimeUnit.SECONDS);
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
				catch (ExecutionException ex) {
					otherErrors.add(ex.getCause());
				}
			}
			return new Outcome((long) threads * rounds, System.nanoTime() - begin, hung, exitedWithCode3.get(),
					List.copyOf(otherErrors), totalStopNanos.get(), slowestStopNanos.get());
		}
		finally {
			pool.shutdownNow();
		}
	}

	/**
	 * What came of a race.
	 *
	 * @param rounds the rounds of all threads together
	 * @param nanos how long the race took
	 * @param hungThreads threads that did not finish within 10 minutes
	 * @param exitedWithCode3 requests that failed with the exit's facts, as they must
	 * @param otherErrors every other outcome of a request
	 * @param totalStopNanos the time all stops took together
	 * @param slowestStopNanos the slowest stop
	 */
	record Outcome(long rounds, long nanos, int hungThreads, int exitedWithCode3, List<Throwable> otherErrors,
			long totalStopNanos, long slowestStopNanos) {

		@Override
		public String toString() {
			return String.format(
					"%d rounds in %d ms, %d hung threads, %d McpServerExitedException(3), "
							+ "%d other errors, stop mean %.2f ms, slowest %.1f ms",
					this.rounds, TimeUnit.NANOSECONDS.toMillis(this.nanos), this.hungThreads, this.exitedWithCode3,
					this.otherErrors.size(), this.totalStopNanos / 1e6 / this.rounds, this.slowestStopNanos / 1e6);
		}

	}

}

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

package dev.mcpstdio.bench.transport;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

import dev.mcpstdio.bench.transport.Connection.Side;

/**
 * The field soak: workers repeat connect, one send ({@code initialize}), close against a
 * server that writes a stderr line and exits at once. Workers are daemon threads watched
 * by the caller's thread: a worker stuck longer than {@link #HUNG_AFTER_NANOS} in one
 * round counts as hung, and the soak ends on time whatever its workers do.
 *
 * @author mcp-stdio authors
 */
final class Soak {

	static final long HUNG_AFTER_NANOS = TimeUnit.SECONDS.toNanos(30);

	private final Side side;

	private final List<String> command;

	private final Markers markers;

	private final int workers;

	private final long seconds;

	private final AtomicLong completed = new AtomicLong();

	private final AtomicLong errors = new AtomicLong();

	private final AtomicLong hidingErrors = new AtomicLong();

	private final AtomicReference<String> example = new AtomicReference<>();

	private final AtomicReference<String> hidingExample = new AtomicReference<>();

	Soak(Side side, List<String> command, Markers markers, int workers, long seconds) {
		this.side = side;
		this.command = command;
		this.markers = markers;
		this.workers = workers;
		this.seconds = seconds;
	}

	Outcome run() throws InterruptedException {
		long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(this.seconds);
		AtomicLongArray roundStarted = new AtomicLongArray(this.workers);
		boolean[] hung = new boolean[this.workers];
		Thread[] threads = new Thread[this.workers];
		for (int w = 0; w < this.workers; w++) {
			int worker = w;
			threads[w] = Results.daemon(() -> {
				int round = 0;
				while (System.nanoTime() < end) {
					roundStarted.set(worker, System.nanoTime());
					round(worker, round++);
					roundStarted.set(worker, 0);
				}
			});
			threads[w].start();
		}
		// watch until the end, then give the last rounds the hang bound to finish
		long watchUntil = end + HUNG_AFTER_NANOS + TimeUnit.SECONDS.toNanos(1);
		while (System.nanoTime() < watchUntil) {
			boolean anyAlive = false;
			for (int w = 0; w < this.workers; w++) {
				long started = roundStarted.get(w);
				if (started != 0 && System.nanoTime() - started > HUNG_AFTER_NANOS) {
					hung[w] = true;
				}
				anyAlive |= threads[w].isAlive();
			}
			if (!anyAlive && System.nanoTime() > end) {
				break;
			}
			Thread.sleep(250);
		}
		int hungCount = 0;
		for (int w = 0; w < this.workers; w++) {
			if (hung[w] || threads[w].isAlive()) {
				hungCount++;
			}
		}
		String shown = (this.hidingExample.get() != null) ? this.hidingExample.get() : this.example.get();
		return new Outcome(this.completed.get(), hungCount, this.errors.get(), this.hidingErrors.get(),
				(shown != null) ? shown : "none");
	}

	private void round(int worker, int round) {
		try (Connection connection = Connection.open(this.side, "soak-" + worker + "-" + round, this.command,
				this.markers)) {
			connection.client().initialize();
		}
		catch (Throwable ex) {
			this.errors.incrementAndGet();
			String message = messages(ex);
			this.example.compareAndSet(null, message);
			if (!namesExit(message)) {
				this.hidingErrors.incrementAndGet();
				this.hidingExample.compareAndSet(null, message);
			}
		}
		finally {
			this.completed.incrementAndGet();
		}
	}

	/** The exit is named when the error carries the exit code (3) and the stderr line. */
	private static boolean namesExit(String message) {
		return message.contains("exit code 3") && message.contains("boom: missing dependency");
	}

	private static String messages(Throwable ex) {
		StringBuilder all = new StringBuilder();
		AtomicInteger depth = new AtomicInteger();
		for (Throwable t = ex; t != null && depth.incrementAndGet() < 8; t = t.getCause()) {
			if (all.length() > 0) {
				all.append(" <- ");
			}
			all.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
		}
		return (all.length() > 300) ? all.substring(0, 300) + "…" : all.toString();
	}

	record Outcome(long completed, int hung, long errors, long hidingErrors, String example) {

	}

}

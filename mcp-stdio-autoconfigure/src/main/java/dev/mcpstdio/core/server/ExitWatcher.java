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

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.LockSupport;

import dev.mcpstdio.core.support.Threads;
import org.jspecify.annotations.Nullable;

/**
 * The watcher of server processes' exits: it hands each to the task executor.
 *
 * @author mcp-stdio authors
 */
final class ExitWatcher {

	/**
	 * How often the live processes are looked at: the most an unseen exit is late.
	 */
	static final long INTERVAL_NANOS = 100_000_000L;

	private final Executor tasks;

	private final Map<Process, Runnable> watched = new ConcurrentHashMap<>();

	private final Object lock = new Object();

	private @Nullable Thread thread;

	private volatile boolean closed;

	ExitWatcher(Executor tasks) {
		this.tasks = tasks;
	}

	/**
	 * Run an action once a process has ended.
	 * @param process the process
	 * @param onExit what to run, on the task executor
	 */
	void watch(Process process, Runnable onExit) {
		this.watched.put(process, onExit);
		synchronized (this.lock) {
			this.thread = Threads.startOrWake(this.thread, this::run, "mcp-stdio-exits");
		}
	}

	/**
	 * Handle a process's exit now if it has ended: whoever sees an end first (the reader
	 * of its stdout at the stream's end, a stop that waited for it) says so.
	 * @param process the process
	 */
	void check(Process process) {
		if (!process.isAlive()) {
			Runnable onExit = this.watched.remove(process);
			if (onExit != null) {
				this.tasks.execute(onExit);
			}
		}
	}

	void close() {
		synchronized (this.lock) {
			this.closed = true;
			if (this.thread != null) {
				this.thread.interrupt();
			}
		}
	}

	// For an exit nobody saw (a child holds stdout open), one thread for all
	// processes. Not Process.onExit(): the JDK completes it on the common fork-join
	// pool, where an exit waits behind whatever else the application runs there
	// (seconds, on Java 25 with two cores). isAlive() turns false as soon as the
	// JDK's own reaper thread has reaped the process, whatever the common pool does.
	private void run() {
		while (!Thread.currentThread().isInterrupted() && !this.closed) {
			if (this.watched.isEmpty()) {
				// Nothing to watch: wait for the next process, without polling
				LockSupport.park(this);
			}
			else {
				LockSupport.parkNanos(this, INTERVAL_NANOS);
			}
			for (Process process : this.watched.keySet()) {
				check(process);
			}
		}
	}

}

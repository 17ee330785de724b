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

package dev.mcpstdio.core.server.io;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

import dev.mcpstdio.core.support.Threads;
import org.jspecify.annotations.Nullable;

/**
 * Reads the stderr of every running server on one thread, never blocking.
 *
 * @author mcp-stdio authors
 */
final class StderrPoller {

	// Instead of a blocking read and a thread per server for a stream that is mostly
	// silent: it reads only what a stream holds, and looks less often while stderr is
	// quiet (at most MAX_PAUSE_NANOS apart) and not at all while no server runs.

	/** The pause after a look that found something to read. */
	private static final long MIN_PAUSE_NANOS = 2_000_000L;

	/** The longest pause between two looks at a quiet stream. */
	static final long MAX_PAUSE_NANOS = 50_000_000L;

	/**
	 * Read at most this much of one stream at once, so that a flood does not starve the
	 * others.
	 */
	private static final int MAX_READS_PER_LOOK = 8;

	/** How long the thread stays once no stream is left to read. */
	static final Duration IDLE = Duration.ofSeconds(10);

	private final Set<StderrTail> tails = ConcurrentHashMap.newKeySet();

	private final long idleNanos;

	private final byte[] buffer = new byte[8192];

	private final Object lock = new Object();

	private @Nullable Thread thread;

	/**
	 * Create a poller.
	 * @param idle how long its thread stays once no stream is left to read
	 */
	StderrPoller(Duration idle) {
		this.idleNanos = idle.toNanos();
	}

	/**
	 * Read a server's stderr from now on, until {@link #remove(StderrTail)}.
	 * @param tail the server's stderr
	 */
	void add(StderrTail tail) {
		this.tails.add(tail);
		synchronized (this.lock) {
			this.thread = Threads.startOrWake(this.thread, this::run, "mcp-stdio-stderr");
		}
	}

	/**
	 * Stop reading a server's stderr: its process has ended.
	 * @param tail the server's stderr
	 */
	void remove(StderrTail tail) {
		this.tails.remove(tail);
	}

	/**
	 * Return the thread that reads, while there is one.
	 * @return the thread or {@code null}
	 */
	@Nullable Thread thread() {
		synchronized (this.lock) {
			return this.thread;
		}
	}

	private void run() {
		long pause = MIN_PAUSE_NANOS;
		while (true) {
			if (this.tails.isEmpty()) {
				// Nothing to read: wait for the next server without polling, and end if
				// none comes
				LockSupport.parkNanos(this, this.idleNanos);
				synchronized (this.lock) {
					if (this.tails.isEmpty()) {
						this.thread = null;
						return;
					}
				}
				pause = MIN_PAUSE_NANOS;
				continue;
			}
			boolean read = false;
			for (StderrTail tail : this.tails) {
				read |= look(tail);
			}
			if (read) {
				// Look again at once while something is written, and soon after
				pause = MIN_PAUSE_NANOS;
				continue;
			}
			LockSupport.parkNanos(this, pause);
			pause = Math.min(pause * 2, MAX_PAUSE_NANOS);
		}
	}

	private boolean look(StderrTail tail) {
		try {
			for (int i = 0; i < MAX_READS_PER_LOOK; i++) {
				int read = tail.poll(this.buffer);
				if (read < 0) {
					this.tails.remove(tail);
				}
				if (read <= 0) {
					// whether an earlier read of this look found something
					return i > 0;
				}
			}
			return true;
		}
		catch (RuntimeException ex) {
			// One stream failing must not end the reading of the others
			this.tails.remove(tail);
			return false;
		}
	}

}

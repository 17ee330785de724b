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

package dev.mcpstdio.lifecycle;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.core.server.StdioServerProcess;
import org.jspecify.annotations.Nullable;

/**
 * The starts of one server that its sends wait through: how many began and ended, the
 * deadline of the restart scheduled last, the exit of a crash loop, and the wait of a
 * send for a settled state. Guarded by the state machine's lock, the one it waits on:
 * called with it held, but for the wait, which takes it past a fast path that reads
 * volatile values.
 *
 * @author mcp-stdio authors
 */
final class StartTally {

	private final Object lock;

	private final ServerStatus status;

	private final ClientTerms terms;

	private final ServerEvents events;

	/** The starts begun and ended, running or failed: a send waits through one. */
	private long begun;

	private long ended;

	/** When a send stops waiting for the restart scheduled last: backoff plus start. */
	private long restartDeadlineNanos;

	/**
	 * The exit of a process that a restart ran and that ended before it was initialized:
	 * the server crash-loops, and a send fails with this exit at once rather than waiting
	 * for the next restart's backoff. {@code null} once a process is initialized.
	 */
	private volatile @Nullable ExitInfo crashLoopExit;

	/**
	 * Create the tally of a server's starts.
	 * @param lock the state machine's lock
	 * @param status what the state machine changes
	 * @param terms who performs the handshake
	 * @param events the exits the state machine was told of
	 */
	StartTally(Object lock, ServerStatus status, ClientTerms terms, ServerEvents events) {
		this.lock = lock;
		this.status = status;
		this.terms = terms;
		this.events = events;
	}

	/** A start begins: the one before it is over. */
	void begin() {
		this.ended = this.begun;
		this.begun++;
	}

	/** The start under way is over, running or failed: the sends waiting look again. */
	void end() {
		this.ended = this.begun;
		this.lock.notifyAll();
	}

	/**
	 * A restart is scheduled: a send waits for it at most its backoff plus
	 * {@code startup-timeout}.
	 * @param backoff the restart's backoff
	 * @param startupTimeout the server's {@code startup-timeout}
	 */
	void restartScheduled(Duration backoff, Duration startupTimeout) {
		this.restartDeadlineNanos = System.nanoTime() + backoff.toNanos() + startupTimeout.toNanos();
	}

	/**
	 * Record the exit of a crash loop, or {@code null} once a process is initialized.
	 * @param exit the exit or {@code null}
	 */
	void crashLoop(@Nullable ExitInfo exit) {
		this.crashLoopExit = exit;
	}

	/**
	 * Wait while the server is between processes, at most through one start: the one
	 * under way, or the one a pending restart begins, not the ones after it. Bounded by
	 * {@code startup-timeout}, or by the restart's backoff plus {@code startup-timeout}.
	 * Takes the lock.
	 * @param startupTimeout the server's {@code startup-timeout}
	 * @throws dev.mcpstdio.McpServerExitedException if the start waited for failed and
	 * another restart is pending: the caller learns of that exit instead of waiting for
	 * the next start
	 */
	void awaitSettled(Duration startupTimeout) {
		if (!isSettling()) {
			// a send's usual case, without the lock: running, and initialized when it
			// performs the handshake itself
			return;
		}
		synchronized (this.lock) {
			if (!isSettling()) {
				return;
			}
			ExitInfo looping = this.crashLoopExit;
			boolean restarting = this.status.state() == ServerState.RESTARTING;
			if (restarting && looping != null) {
				// the restart before this one ended as its process started: the caller
				// learns of that exit now, not after the next backoff
				throw looping.toException();
			}
			if (!await(restarting, startupTimeout)) {
				return;
			}
			StdioServerProcess current = this.status.process();
			// The exit the controller was told of, which the process may not tell yet
			ExitInfo exit = this.events.lastExit();
			if (this.status.state() == ServerState.RESTARTING && current != null && exit != null
					&& exit.pid() == current.pid()) {
				throw exit.toException();
			}
		}
	}

	/**
	 * Also read without the lock, on a send's fast path: every value read is volatile.
	 */
	private boolean isSettling() {
		ServerState current = this.status.state();
		return current == ServerState.RESTARTING || current == ServerState.STARTING
				|| (current == ServerState.RUNNING && this.terms.selfInitialize() && !this.status.initialized());
	}

	/**
	 * Wait while the server settles, at most through one start: the one under way, or the
	 * one a pending restart begins. Bounded by {@code startup-timeout}, or by the
	 * restart's backoff plus {@code startup-timeout}.
	 * @param restartPending whether a restart is pending
	 * @param startupTimeout the server's {@code startup-timeout}
	 * @return {@code false} if the wait was interrupted (the thread's flag set again)
	 */
	private boolean await(boolean restartPending, Duration startupTimeout) {
		long awaited = restartPending ? this.begun + 1 : this.begun;
		long deadline = restartPending ? this.restartDeadlineNanos : System.nanoTime() + startupTimeout.toNanos();
		long remaining = deadline - System.nanoTime();
		while (isSettling() && this.ended < awaited && remaining > 0) {
			try {
				TimeUnit.NANOSECONDS.timedWait(this.lock, remaining);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
			remaining = deadline - System.nanoTime();
		}
		return true;
	}

}

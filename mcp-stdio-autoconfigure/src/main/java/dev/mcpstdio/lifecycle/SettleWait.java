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
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Makes a send wait, at most through one start, while its server is between processes.
 * <p>
 * A send that comes while a start (or its handshake) is under way waits for that start;
 * one that comes while a restart is pending waits for that restart's start, not for the
 * ones after it: when that start fails, the send goes on and fails naming why. It waits
 * on the state machine's lock, which is notified at every change, bounded by the
 * restart's backoff plus {@code startup-timeout}, or by {@code startup-timeout}.
 *
 * @author mcp-stdio authors
 */
final class SettleWait {

	private final Object lock;

	private final Duration startupTimeout;

	private final LongSupplier nanoClock;

	/** Whether the server is between processes; asked with the lock held. */
	private final BooleanSupplier settling;

	/** Whether a restart is pending or under way; asked with the lock held. */
	private final BooleanSupplier restarting;

	/** When a send stops waiting for the restart scheduled last: backoff plus start. */
	private long restartDeadlineNanos;

	/** The starts begun; guarded by the lock. */
	private long begun;

	/** The starts that ended, running or failed; guarded by the lock. */
	private long ended;

	/**
	 * Create the wait of a server.
	 * @param lock the state machine's lock, notified at every change
	 * @param startupTimeout the server's {@code startup-timeout}
	 * @param nanoClock the clock of the deadlines
	 * @param settling whether the server is between processes, asked with the lock held
	 * @param restarting whether a restart is pending or under way, asked with the lock
	 * held
	 */
	SettleWait(Object lock, Duration startupTimeout, LongSupplier nanoClock, BooleanSupplier settling,
			BooleanSupplier restarting) {
		this.lock = lock;
		this.startupTimeout = startupTimeout;
		this.nanoClock = nanoClock;
		this.settling = settling;
		this.restarting = restarting;
	}

	/**
	 * A restart was scheduled: sends wait for its backoff plus its start. Called with the
	 * lock held, before the state changes.
	 * @param backoff the restart's backoff
	 */
	void restartScheduled(Duration backoff) {
		this.restartDeadlineNanos = this.nanoClock.getAsLong() + backoff.toNanos() + this.startupTimeout.toNanos();
	}

	/**
	 * A start begins. Called with the lock held.
	 */
	void startBegun() {
		this.ended = this.begun;
		this.begun++;
	}

	/**
	 * The start begun last ended: its process runs (and answered its handshake when the
	 * server performs it), or the start failed. Called with the lock held; a second call
	 * for the same start does nothing.
	 */
	void startEnded() {
		this.ended = this.begun;
	}

	/**
	 * Wait until the server is settled, or the one start it waits for ended, bounded; an
	 * interrupt ends the wait (and is restored).
	 */
	void await() {
		synchronized (this.lock) {
			if (!this.settling.getAsBoolean()) {
				return;
			}
			boolean restartPending = this.restarting.getAsBoolean();
			// the start under way, or the one the pending restart begins
			long awaited = restartPending ? this.begun + 1 : this.begun;
			long deadline = restartPending ? this.restartDeadlineNanos
					: this.nanoClock.getAsLong() + this.startupTimeout.toNanos();
			long remaining = deadline - this.nanoClock.getAsLong();
			while (this.settling.getAsBoolean() && this.ended < awaited && remaining > 0) {
				try {
					TimeUnit.NANOSECONDS.timedWait(this.lock, remaining);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
				remaining = deadline - this.nanoClock.getAsLong();
			}
		}
	}

}

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

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

/**
 * The check of a direct write to a server's stdin that stays blocked longer than the send
 * timeout.
 *
 * @author mcp-stdio authors
 */
final class BlockedWriteCheck {

	// No thread waits here while nothing is written: one timed check on the shared
	// scheduler, armed by a write only when none is pending, notices a write blocked
	// longer than the send timeout

	private final ScheduledExecutorService timer;

	private final long sendTimeoutNanos;

	private final Runnable onBlocked;

	/** Whether a check is scheduled. */
	private final AtomicBoolean watching = new AtomicBoolean();

	/** The check scheduled last, cancelled when stdin is closed. */
	private volatile @Nullable ScheduledFuture<?> pendingCheck;

	/**
	 * Whether the writer was asked to close: a check scheduled after that is cancelled.
	 */
	private volatile boolean cancelled;

	/** When the direct write under way began, 0 when none is. */
	private volatile long directSince;

	private volatile boolean blockedReported;

	/**
	 * Create the check of one writer.
	 * @param timer runs the check
	 * @param sendTimeoutNanos how long a write may block
	 * @param onBlocked called once when a direct write stays blocked longer than that
	 */
	BlockedWriteCheck(ScheduledExecutorService timer, long sendTimeoutNanos, Runnable onBlocked) {
		this.timer = timer;
		this.sendTimeoutNanos = sendTimeoutNanos;
		this.onBlocked = onBlocked;
	}

	/** A direct write begins: check it once the send timeout has passed. */
	void writing() {
		this.directSince = System.nanoTime();
		watch();
	}

	/** The direct write under way is done. */
	void written() {
		this.directSince = 0;
	}

	/** Check a direct write once the send timeout has passed, unless a check is due. */
	private void watch() {
		if (!this.watching.get() && this.watching.compareAndSet(false, true)) {
			schedule(this.sendTimeoutNanos);
		}
	}

	private void schedule(long delayNanos) {
		try {
			this.pendingCheck = this.timer.schedule(this::check, delayNanos, TimeUnit.NANOSECONDS);
			if (this.cancelled) {
				// closed meanwhile: see cancel()
				cancelPending();
			}
		}
		catch (RejectedExecutionException ex) {
			// The application is shutting down: nothing is left to fail
			this.watching.set(false);
		}
	}

	private void check() {
		long since = this.directSince;
		if (since != 0) {
			long overdue = System.nanoTime() - since - this.sendTimeoutNanos;
			if (overdue < 0) {
				schedule(-overdue);
				return;
			}
			if (!this.blockedReported) {
				this.blockedReported = true;
				this.onBlocked.run();
			}
		}
		this.watching.set(false);
		// A write that began after the read above may have seen this check still due
		if (this.directSince != 0 && !this.blockedReported && this.watching.compareAndSet(false, true)) {
			schedule(this.sendTimeoutNanos);
		}
	}

	/**
	 * Cancel the check: stdin is being closed. A check waiting in the timer holds its
	 * writer, and so its process, until it is due (a send timeout away): a process that
	 * ended lets go at once.
	 */
	void cancel() {
		this.cancelled = true;
		cancelPending();
	}

	private void cancelPending() {
		ScheduledFuture<?> check = this.pendingCheck;
		if (check != null) {
			check.cancel(false);
		}
	}

}

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
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.mcpstdio.core.support.Waits;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The sweep of one ledger that ends the observation of each request its client stopped
 * waiting for: no answer within the client's request timeout. The entry stays in the
 * ledger (a late answer still closes it); it no longer holds a stop's drain.
 *
 * @author mcp-stdio authors
 */
final class RequestTimeouts {

	private static final Log logger = LogFactory.getLog(RequestTimeouts.class);

	private final ScheduledExecutorService scheduler;

	private final AtomicBoolean scheduled = new AtomicBoolean();

	/** The sweep due, which holds the ledger until it runs or is cancelled. */
	private volatile @Nullable ScheduledFuture<?> due;

	/** Set once the process has ended: nothing more is scheduled. */
	private volatile boolean cancelled;

	RequestTimeouts(ScheduledExecutorService scheduler) {
		this.scheduler = scheduler;
	}

	/**
	 * The failure of a request its client stopped waiting for.
	 * @param timeoutNanos the client's request timeout
	 * @return the failure
	 */
	static TimeoutException timedOut(long timeoutNanos) {
		return new TimeoutException(
				"No response within the client's request timeout of " + Waits.format(Duration.ofNanos(timeoutNanos)));
	}

	/**
	 * An observed request was entered: sweep the ledger once the oldest may be too old.
	 * @param ledger the ledger
	 */
	void watch(RequestLedger ledger) {
		long timeout = ledger.clientTimeoutNanos();
		if (timeout != Long.MAX_VALUE && !this.cancelled && !this.scheduled.get()
				&& this.scheduled.compareAndSet(false, true)) {
			schedule(ledger, timeout);
		}
	}

	/**
	 * The process has ended, its ledger closed: cancel the sweep due, so that the timer
	 * keeps nothing of the process until then.
	 */
	void cancel() {
		this.cancelled = true;
		cancelDue();
	}

	private void schedule(RequestLedger ledger, long delayNanos) {
		try {
			this.due = this.scheduler.schedule(() -> sweep(ledger), delayNanos, TimeUnit.NANOSECONDS);
			if (this.cancelled) {
				// ended meanwhile: cancel() may have looked before this was due
				cancelDue();
			}
		}
		catch (RejectedExecutionException ex) {
			// the host is shutting down: the processes' ends end the requests
			this.scheduled.set(false);
		}
	}

	private void cancelDue() {
		ScheduledFuture<?> sweep = this.due;
		if (sweep != null) {
			sweep.cancel(false);
		}
	}

	private void sweep(RequestLedger ledger) {
		long timeout = ledger.clientTimeoutNanos();
		try {
			long now = System.nanoTime();
			for (InFlightRequest entry : ledger.entries()) {
				if (entry.observer() != null && now - entry.sentAt() >= timeout) {
					entry.ended(null, timedOut(timeout));
				}
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Could not end the observations of requests past their timeout", ex);
		}
		finally {
			this.scheduled.set(false);
		}
		// Looked at once the flag is down: a request entered during the walk found the
		// sweep still scheduled, and the walk may have passed its place
		long next = nextDue(ledger, timeout);
		if (next != Long.MAX_VALUE && !this.cancelled && this.scheduled.compareAndSet(false, true)) {
			schedule(ledger, next);
		}
	}

	/**
	 * Return when the next observed request turns too old.
	 * @return nanoseconds from now, {@link Long#MAX_VALUE} when none is observed
	 */
	private static long nextDue(RequestLedger ledger, long timeout) {
		if (timeout == Long.MAX_VALUE) {
			return Long.MAX_VALUE;
		}
		long now = System.nanoTime();
		long next = Long.MAX_VALUE;
		for (InFlightRequest entry : ledger.entries()) {
			if (entry.observer() != null) {
				next = Math.min(next, Math.max(0, timeout - (now - entry.sentAt())));
			}
		}
		return next;
	}

}

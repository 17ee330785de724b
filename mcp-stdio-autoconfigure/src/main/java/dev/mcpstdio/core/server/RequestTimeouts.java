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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.mcpstdio.core.support.Waits;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

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
		if (timeout != Long.MAX_VALUE && !this.scheduled.get() && this.scheduled.compareAndSet(false, true)) {
			schedule(ledger, timeout);
		}
	}

	private void schedule(RequestLedger ledger, long delayNanos) {
		try {
			this.scheduler.schedule(() -> sweep(ledger), delayNanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// the host is shutting down: the processes' ends end the requests
			this.scheduled.set(false);
		}
	}

	/**
	 * End the observations of the requests older than the client's timeout; look again
	 * when the next is due.
	 */
	private void sweep(RequestLedger ledger) {
		long timeout = ledger.clientTimeoutNanos();
		long next = Long.MAX_VALUE;
		boolean observed = false;
		try {
			long now = System.nanoTime();
			for (InFlightRequest entry : ledger.entries()) {
				if (entry.observer() == null) {
					continue;
				}
				long age = now - entry.sentAt();
				if (age >= timeout) {
					entry.ended(null, timedOut(timeout));
				}
				else {
					observed = true;
					next = Math.min(next, timeout - age);
				}
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Could not end the observations of requests past their timeout", ex);
		}
		finally {
			this.scheduled.set(false);
		}
		if (observed && this.scheduled.compareAndSet(false, true)) {
			schedule(ledger, next);
		}
	}

}

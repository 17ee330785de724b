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
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.mcpstdio.core.server.io.JsonRpcLine;
import dev.mcpstdio.core.support.Threads;
import org.jspecify.annotations.Nullable;

/**
 * The ledger of one process's requests in flight: the one map of them, by id, where each
 * is opened when sent and closed by its response, its client's cancellation, a failed
 * write or the process's end, so that they can be counted, drained and failed.
 *
 * @author mcp-stdio authors
 */
final class RequestLedger {

	/**
	 * The most requests in flight: past it, the ones their clients gave up on are
	 * forgotten (a late answer is then one to an id never sent), and, when none was given
	 * up, a new request is refused.
	 */
	static final int CAPACITY = 10_000;

	private final Map<String, InFlightRequest> byId = new ConcurrentHashMap<>();

	private final Object changed = new Object();

	/** How long the client waits for a response, in nanoseconds. */
	private volatile long clientTimeoutNanos = Long.MAX_VALUE;

	/** Ends the observations of the requests the client stopped waiting for. */
	private final @Nullable RequestTimeouts timeouts;

	/**
	 * Set by the exit before it closes every entry: a request opened since is its
	 * sender's to fail.
	 */
	private volatile boolean ended;

	/** Set once a stop's drain began: only then does a closed entry wake it. */
	private volatile boolean drainWaits;

	/**
	 * Create a ledger.
	 * @param timeouts ends the observations of requests older than the client's timeout,
	 * or {@code null}
	 */
	RequestLedger(@Nullable RequestTimeouts timeouts) {
		this.timeouts = timeouts;
	}

	/**
	 * Set how long the client waits for a response: an older request holds no drain, and
	 * its observation ends.
	 * @param nanos the timeout in nanoseconds, {@link Long#MAX_VALUE} for none
	 */
	void clientTimeout(long nanos) {
		this.clientTimeoutNanos = nanos;
	}

	/**
	 * Enter a request about to be written.
	 * @param request its entry
	 * @return {@link Opened#OPEN}, or why it was not entered: a request with its id is in
	 * flight, the process has ended, or the ledger is full
	 */
	Opened open(InFlightRequest request) {
		String key = request.key();
		if (this.byId.size() >= CAPACITY && !forgetGivenUp()) {
			return Opened.FULL;
		}
		if (this.byId.putIfAbsent(key, request) != null) {
			return Opened.DUPLICATE;
		}
		// the exit marks, then closes all: it found this entry, or this sees its mark;
		// when both, the one that removes it fails it
		if (this.ended && this.byId.remove(key) != null) {
			signal();
			return Opened.AFTER_EXIT;
		}
		if (this.timeouts != null && request.observer() != null) {
			this.timeouts.watch(this);
		}
		return Opened.OPEN;
	}

	/**
	 * Close the entry a response (or a failed write) ends.
	 * @param id the id
	 * @return the entry, or {@code null} when no request with that id is in flight
	 */
	@Nullable InFlightRequest close(String id) {
		InFlightRequest entry = this.byId.remove(id);
		if (entry != null && this.drainWaits) {
			signal();
		}
		return entry;
	}

	/**
	 * Take a message the client sends that is not a request: a
	 * {@code notifications/cancelled} closes the request it names, which then holds no
	 * stop's drain, and ends its observation.
	 * @param message the message
	 */
	void notifying(JsonRpcLine message) {
		String cancelled = message.cancelledId();
		InFlightRequest entry = (cancelled != null) ? close(cancelled) : null;
		if (entry != null) {
			entry.ended(null, new CancellationException("Cancelled by the client"));
		}
	}

	boolean contains(String id) {
		return this.byId.containsKey(id);
	}

	int size() {
		return this.byId.size();
	}

	/** The requests in flight now, for the sweep of those too old. */
	Collection<InFlightRequest> entries() {
		return this.byId.values();
	}

	long clientTimeoutNanos() {
		return this.clientTimeoutNanos;
	}

	/**
	 * Close every entry: the process has ended.
	 * @return the entries that were in flight
	 */
	Ended closeAll() {
		this.ended = true;
		if (this.timeouts != null) {
			// the timer holds nothing of an ended process
			this.timeouts.cancel();
		}
		List<InFlightRequest> unanswered = new ArrayList<>();
		List<InFlightRequest> awaited = new ArrayList<>();
		for (Object id : new ArrayList<>(this.byId.keySet())) {
			InFlightRequest entry = this.byId.remove(id);
			if (entry != null) {
				((entry.future() == null) ? unanswered : awaited).add(entry);
			}
		}
		signal();
		return new Ended(List.copyOf(unanswered), List.copyOf(awaited));
	}

	/**
	 * Wait until no request is in flight that its client still waits for: one whose
	 * future is done (given up by its caller), or older than the client's timeout, does
	 * not hold the wait.
	 * @param deadlineNanos when to give up, in {@link System#nanoTime()}
	 * @return whether none is left that its client waits for
	 */
	boolean awaitEmpty(long deadlineNanos) {
		this.drainWaits = true;
		// read again every few ms: a request turns too old without a signal
		return Threads.awaitOn(this.changed, deadlineNanos, 10,
				() -> this.byId.values().stream().noneMatch((entry) -> entry.awaited(this.clientTimeoutNanos)));
	}

	/**
	 * Forget the requests whose clients gave up on them, for room.
	 * @return whether there is room now
	 */
	private boolean forgetGivenUp() {
		long timeout = this.clientTimeoutNanos;
		TimeoutException timedOut = RequestTimeouts.timedOut(timeout);
		for (InFlightRequest entry : this.byId.values()) {
			if (!entry.awaited(timeout) && this.byId.remove(entry.key(), entry)) {
				entry.ended(null, timedOut);
			}
		}
		return this.byId.size() < CAPACITY;
	}

	void signal() {
		synchronized (this.changed) {
			this.changed.notifyAll();
		}
	}

	/** What came of opening an entry. */
	enum Opened {

		/** In flight until answered, or failed by the exit. */
		OPEN,

		/** Not entered: a request with its id is in flight. */
		DUPLICATE,

		/** Not entered: the process ended, and its exit failed the requests in flight. */
		AFTER_EXIT,

		/** Not entered: {@link #CAPACITY} requests are in flight, all awaited. */
		FULL

	}

	/**
	 * The requests in flight when the process ended: the ones the listener is told of,
	 * then all failed.
	 *
	 * @param unanswered the requests whose responses the listener would have got
	 * @param awaited the requests sent with a future of their own
	 */
	record Ended(List<InFlightRequest> unanswered, List<InFlightRequest> awaited) {

		/**
		 * Fail the requests the listener awaited, all with the exit's one failure.
		 * @param exit the failure
		 */
		void failUnanswered(Supplier<? extends Throwable> exit) {
			if (this.unanswered.isEmpty()) {
				return;
			}
			Throwable failure = exit.get();
			for (InFlightRequest entry : this.unanswered) {
				entry.failed(failure);
			}
		}

		/**
		 * Fail the futures of the requests sent with one.
		 * @param failure the failure of a request, by its id
		 */
		void failAwaited(Function<Object, ? extends Throwable> failure) {
			for (InFlightRequest entry : this.awaited) {
				entry.failed(failure.apply(entry.id()));
			}
		}

	}

}

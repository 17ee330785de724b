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
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import dev.mcpstdio.core.server.io.JsonRpcLine;
import dev.mcpstdio.core.support.Threads;
import org.jspecify.annotations.Nullable;

/**
 * The ledger of one process's requests in flight: each sent and not yet answered, by id,
 * so that they can be counted, drained, cancelled and failed when the process ends.
 *
 * @author mcp-stdio authors
 */
final class RequestLedger {

	private final Map<String, Entry> byId = new ConcurrentHashMap<>();

	private final Object changed = new Object();

	/**
	 * Set by the exit before it closes every entry: a request opened since is its
	 * sender's to fail.
	 */
	private volatile boolean ended;

	/**
	 * Enter a request about to be written.
	 * @param id its id as given
	 * @param request the request, or {@code null} when only its text is known
	 * @param future its future, or {@code null} when the listener gets the response
	 * @return whether it was entered: not when a request with that id is in flight, nor
	 * once the process has ended
	 */
	Opened open(Object id, @Nullable JsonRpcLine request, @Nullable CompletableFuture<JsonRpcLine> future) {
		// "7" and 7 are one id
		String key = id.toString();
		if (this.byId.putIfAbsent(key, new Entry(id, request, future, System.nanoTime())) != null) {
			return Opened.DUPLICATE;
		}
		// the exit marks, then closes all: it found this entry, or this sees its mark;
		// when both, the one that removes it fails it
		if (this.ended && this.byId.remove(key) != null) {
			signal();
			return Opened.AFTER_EXIT;
		}
		return Opened.OPEN;
	}

	/**
	 * Close the entry a response (or a failed write) ends.
	 * @param id the id
	 * @return the entry, or {@code null} when no request with that id is in flight
	 */
	@Nullable Entry close(String id) {
		Entry entry = this.byId.remove(id);
		if (entry != null) {
			signal();
		}
		return entry;
	}

	/**
	 * Take a message the client sends that is not a request: a
	 * {@code notifications/cancelled} closes the request it names, which then holds no
	 * stop's drain.
	 * @param message the message
	 */
	void notifying(JsonRpcLine message) {
		String cancelled = message.cancelledId();
		if (cancelled != null) {
			close(cancelled);
		}
	}

	int size() {
		return this.byId.size();
	}

	/**
	 * Close every entry: the process has ended.
	 * @return the entries that were in flight
	 */
	Ended closeAll() {
		this.ended = true;
		List<Entry> all = new ArrayList<>(this.byId.keySet()).stream()
			.map(this.byId::remove)
			.filter(Objects::nonNull)
			.toList();
		signal();
		return new Ended(all);
	}

	/**
	 * Wait until no request is in flight that its client still waits for: one whose
	 * future is done (given up by its caller), or older than the client's timeout, does
	 * not hold the wait.
	 */
	boolean awaitEmpty(long deadlineNanos, long clientTimeoutNanos) {
		// read again every few ms: a request turns too old without a signal
		return Threads.awaitOn(this.changed, deadlineNanos, 10,
				() -> this.byId.values().stream().noneMatch((entry) -> entry.awaited(clientTimeoutNanos)));
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
		AFTER_EXIT

	}

	/**
	 * One request in flight.
	 *
	 * @param id its id as given
	 * @param request the request, or {@code null} when only its text was given
	 * @param future its future, or {@code null} when the listener gets the response
	 * @param sentAt its {@link System#nanoTime()} when sent
	 */
	record Entry(Object id, @Nullable JsonRpcLine request, @Nullable CompletableFuture<JsonRpcLine> future,
			long sentAt) {

		/** Whether its client still waits for it: not given up, nor too old. */
		boolean awaited(long clientTimeoutNanos) {
			boolean givenUp = this.future != null && this.future.isDone();
			return !givenUp && System.nanoTime() - this.sentAt < clientTimeoutNanos;
		}

		/**
		 * Return its method, as the request says.
		 * @return the method, or {@code null} when unknown
		 */
		@Nullable String method() {
			return (this.request != null) ? this.request.method() : null;
		}

	}

	/**
	 * The requests in flight when the process ended: the ids the listener is told, then
	 * the futures failed.
	 *
	 * @param entries the entries
	 */
	record Ended(List<Entry> entries) {

		/** The ids of the requests whose responses the listener would have got. */
		List<Object> unanswered() {
			return this.entries.stream().filter((entry) -> entry.future() == null).map(Entry::id).toList();
		}

		/**
		 * Fail the futures of the requests sent with one.
		 * @param failure the failure of a request, by its id
		 */
		void fail(Function<Object, ? extends Throwable> failure) {
			for (Entry entry : this.entries) {
				if (entry.future() != null) {
					entry.future().completeExceptionally(failure.apply(entry.id()));
				}
			}
		}

	}

}

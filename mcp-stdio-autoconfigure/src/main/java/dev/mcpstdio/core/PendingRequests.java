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

package dev.mcpstdio.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

/**
 * The requests sent to a server and not yet answered, by id, so that they can be counted,
 * drained and failed when the process ends.
 *
 * @author mcp-stdio authors
 */
final class PendingRequests {

	private final Map<String, Pending> byId = new ConcurrentHashMap<>();

	private final Object changed = new Object();

	/**
	 * Track a request.
	 * @param id its id
	 * @param future completed with the response line, or {@code null} when the listener
	 * gets the response
	 * @return whether it was added: {@code false} when the id is already pending
	 */
	boolean add(Object id, @Nullable CompletableFuture<String> future) {
		return this.byId.putIfAbsent(key(id), new Pending(id, future, System.nanoTime())) == null;
	}

	/**
	 * Take the request a response answers.
	 * @param id the response's id as text
	 * @return the request or {@code null} when none is pending under that id
	 */
	@Nullable Pending answer(String id) {
		Pending pending = this.byId.remove(id);
		if (pending != null) {
			signal();
		}
		return pending;
	}

	void remove(Object id) {
		if (this.byId.remove(key(id)) != null) {
			signal();
		}
	}

	int size() {
		return this.byId.size();
	}

	/**
	 * Take every pending request.
	 * @return what was pending
	 */
	List<Pending> drainAll() {
		List<Pending> all = new ArrayList<>();
		for (String key : new ArrayList<>(this.byId.keySet())) {
			Pending pending = this.byId.remove(key);
			if (pending != null) {
				all.add(pending);
			}
		}
		signal();
		return all;
	}

	/**
	 * Wait until no request is pending that its client still waits for: one whose future
	 * is done (cancelled by a caller that gave up) does not hold the wait.
	 * @param deadlineNanos the {@link System#nanoTime()} to give up at
	 * @param clientTimeoutNanos how long a client waits for a response: an older request
	 * is given up on and does not hold the wait; {@link Long#MAX_VALUE} for no limit
	 * @return whether none is pending that a client waits for
	 */
	boolean awaitEmpty(long deadlineNanos, long clientTimeoutNanos) {
		synchronized (this.changed) {
			while (true) {
				long now = System.nanoTime();
				long youngest = Long.MIN_VALUE;
				boolean waited = false;
				for (Pending pending : this.byId.values()) {
					boolean givenUp = pending.future() != null && pending.future().isDone();
					if (!givenUp && now - pending.sentAt() < clientTimeoutNanos) {
						waited = true;
						youngest = Math.max(youngest, pending.sentAt());
					}
				}
				if (!waited) {
					return true;
				}
				long until = Math.min(deadlineNanos,
						(clientTimeoutNanos == Long.MAX_VALUE) ? deadlineNanos : youngest + clientTimeoutNanos);
				long left = until - now;
				if (left <= 0) {
					if (now >= deadlineNanos) {
						return false;
					}
					// the youngest became too old meanwhile: look again
					continue;
				}
				try {
					this.changed.wait(Math.max(1, left / 1_000_000L));
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return false;
				}
			}
		}
	}

	void signal() {
		synchronized (this.changed) {
			this.changed.notifyAll();
		}
	}

	static String key(Object id) {
		return id.toString();
	}

	/**
	 * One request.
	 *
	 * @param id its id as given
	 * @param future its future, or {@code null}
	 * @param sentAt its {@link System#nanoTime()} when sent
	 */
	record Pending(Object id, @Nullable CompletableFuture<String> future, long sentAt) {

	}

}

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

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

import dev.mcpstdio.core.server.io.JsonRpcLine;
import org.jspecify.annotations.Nullable;

/**
 * One request in flight: the entry of a process's {@link RequestLedger}, the one record
 * of the request that its observer and its client read (its id, method, time sent, the
 * observer's slot and the client's slot).
 *
 * @author mcp-stdio authors
 */
public final class InFlightRequest {

	private static final AtomicReferenceFieldUpdater<InFlightRequest, @Nullable Observer> OBSERVER = AtomicReferenceFieldUpdater
		.newUpdater(InFlightRequest.class, Observer.class, "observer");

	private final Object id;

	private final String key;

	private final JsonRpcLine request;

	private final @Nullable CompletableFuture<JsonRpcLine> future;

	private final @Nullable MessageListener client;

	private volatile @Nullable Observer observer;

	private volatile long sentAt = System.nanoTime();

	private InFlightRequest(Object id, JsonRpcLine request, @Nullable CompletableFuture<JsonRpcLine> future,
			@Nullable MessageListener client) {
		this.id = id;
		// "7" and 7 are one id
		this.key = id.toString();
		this.request = request;
		this.future = future;
		this.client = client;
	}

	/**
	 * Create the entry of a request whose response goes to the process's listener.
	 * @param id its id as given
	 * @param request the request
	 * @param client the client session the response is for, or {@code null}
	 * @return the entry, not yet sent
	 */
	public static InFlightRequest of(Object id, JsonRpcLine request, @Nullable MessageListener client) {
		return new InFlightRequest(id, request, null, client);
	}

	/**
	 * Create the entry of a request whose sender awaits its response in a future.
	 * @param id its id as given
	 * @param request the request
	 * @return the entry, not yet sent
	 */
	public static InFlightRequest awaited(Object id, JsonRpcLine request) {
		CompletableFuture<JsonRpcLine> future = new CompletableFuture<>();
		InFlightRequest entry = new InFlightRequest(id, request, future, null);
		// however the future ends (answered, failed, given up by its caller), the
		// observer learns it once
		future.whenComplete(entry::ended);
		return entry;
	}

	public Object id() {
		return this.id;
	}

	/**
	 * Return its id as text, the ledger's key: "7" and 7 are one id.
	 * @return the key
	 */
	public String key() {
		return this.key;
	}

	/**
	 * Return the request as its sender gave it.
	 * @return the request
	 */
	public JsonRpcLine request() {
		return this.request;
	}

	/**
	 * Return its method, as the request says.
	 * @return the method, or {@code null} when unknown
	 */
	public @Nullable String method() {
		return this.request.method();
	}

	/**
	 * Return the client session the response is for: the client's slot.
	 * @return the session, or {@code null} for a request no client session sent
	 */
	public @Nullable MessageListener client() {
		return this.client;
	}

	/**
	 * Return the future of a request sent with one.
	 * @return the future, or {@code null} when the listener gets the response
	 */
	public @Nullable CompletableFuture<JsonRpcLine> future() {
		return this.future;
	}

	/**
	 * Return when it was sent.
	 * @return its {@link System#nanoTime()} when entered in the ledger
	 */
	public long sentAt() {
		return this.sentAt;
	}

	/**
	 * Attach what observes the request: the observer's slot.
	 * @param observer the observer, told once how the request ended
	 */
	public void observe(Observer observer) {
		this.observer = observer;
	}

	/**
	 * Return what observes the request until it ends.
	 * @return the observer, or {@code null} when none observes it (or it ended)
	 */
	public @Nullable Observer observer() {
		return this.observer;
	}

	/**
	 * Entered in the ledger: the time sent is now, and the observer gives the line to
	 * write.
	 */
	JsonRpcLine opened() {
		this.sentAt = System.nanoTime();
		Observer current = this.observer;
		return (current != null) ? current.opened(this) : this.request;
	}

	/**
	 * Whether its client still waits for it: not given up, nor too old.
	 * @param clientTimeoutNanos how long the client waits
	 */
	boolean awaited(long clientTimeoutNanos) {
		boolean givenUp = this.future != null && this.future.isDone();
		return !givenUp && System.nanoTime() - this.sentAt < clientTimeoutNanos;
	}

	/**
	 * The request failed: it could not be sent, or its process ended; a future is failed
	 * with it, and the observer told.
	 * @param failure why
	 */
	public void failed(Throwable failure) {
		if (this.future != null) {
			this.future.completeExceptionally(failure);
		}
		else {
			ended(null, failure);
		}
	}

	/**
	 * Tell the observer, once, how the request ended.
	 * @param response the response, or {@code null} when it failed
	 * @param failure why it failed, or {@code null}
	 */
	void ended(@Nullable JsonRpcLine response, @Nullable Throwable failure) {
		Observer current = (this.observer != null) ? OBSERVER.getAndSet(this, null) : null;
		if (current != null) {
			current.ended(this, response, failure);
		}
	}

	@Override
	public String toString() {
		return "InFlightRequest[" + this.key + ", " + method() + "]";
	}

	/**
	 * What observes one request, in its slot of the entry: called from the sending thread
	 * and the thread that reads the server's stdout, it must return quickly and never
	 * block.
	 */
	public interface Observer {

		/**
		 * The request is entered in the ledger and about to be written.
		 * @param request the entry
		 * @return the line to write: the request, with what the observer adds to it
		 */
		JsonRpcLine opened(InFlightRequest request);

		/**
		 * The request ended: answered, or failed (its send, its process's end, its
		 * client's cancellation, no answer within the client's timeout). Called once.
		 * @param request the entry
		 * @param response the response, or {@code null} when it failed
		 * @param failure why it failed, or {@code null}
		 */
		void ended(InFlightRequest request, @Nullable JsonRpcLine response, @Nullable Throwable failure);

	}

}

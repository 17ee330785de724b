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
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongPredicate;

import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.core.server.InFlightRequest;
import dev.mcpstdio.core.server.io.JsonRpcLine;
import dev.mcpstdio.core.server.MessageListener;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.server.StdioServerProcess;
import org.jspecify.annotations.Nullable;

/**
 * The client-facing side of one server: the {@link ClientConnection} a client integration
 * is handed, and the one path of a send (demand, the wait for a settled state, the
 * process).
 *
 * @author mcp-stdio authors
 */
final class ServerConnection implements ClientConnection {

	private final McpStdioServerDefinition definition;

	private final ServerController controller;

	private final UsageSupervisor usage;

	/** The client session the process's messages and its end go to. */
	private volatile MessageListener session = MessageListener.NONE;

	private volatile RequestObserver requests;

	/**
	 * Create the client side of a server, and its state machine and usage supervisor.
	 * @param definition the server
	 * @param host what it shares with the other servers
	 * @param template the client side of the per-user server this is an instance of, else
	 * {@code null}: what a client integration told it holds for its instances
	 */
	ServerConnection(McpStdioServerDefinition definition, ServerHost host, @Nullable ServerConnection template) {
		this.definition = definition;
		this.requests = (template != null) ? template.requests : RequestObserver.NONE;
		this.controller = new ServerController(definition, host, (template != null) ? template.controller : null,
				new Routing());
		this.usage = new UsageSupervisor(definition, host, this.controller);
		this.controller.events().watchStates(this.usage::stateChanged);
	}

	ServerController controller() {
		return this.controller;
	}

	/**
	 * Return when a message last went to or came from the server.
	 * @return the time
	 */
	Instant lastUsed() {
		return this.usage.lastUsed();
	}

	/** Send a message to the current process, as {@link McpStdioServer#send} does. */
	void send(String message, @Nullable Object requestId) {
		send(message, requestId, null);
	}

	@Override
	public void send(String message, @Nullable Object requestId, @Nullable LongPredicate settled) {
		JsonRpcLine line = JsonRpcLine.of(message);
		InFlightRequest request = null;
		if (requestId != null) {
			// the one record of the request: the observer and the client read it
			MessageListener client = this.session;
			request = InFlightRequest.of(requestId, line, (client != MessageListener.NONE) ? client : null);
			observe(request);
		}
		try {
			this.usage.beginSend();
			try {
				// the one wait for a settled state of a send: no lock while settled
				this.controller.awaitSettled();
				if (settled != null && !settled.test(this.controller.status().generation())) {
					if (request != null) {
						request.failed(new CancellationException("Withdrawn by the client"));
					}
					return;
				}
				StdioServerProcess current = current();
				if (request != null) {
					current.send(request);
				}
				else {
					current.send(line, null);
				}
			}
			finally {
				this.usage.endSend();
			}
		}
		catch (RuntimeException ex) {
			if (request != null) {
				// a failed send ends the request's observation
				request.failed(ex);
			}
			throw ex;
		}
	}

	/**
	 * Send a request to the current process and get its response.
	 * @param id the request id
	 * @param message the request
	 * @return the response future
	 */
	CompletableFuture<String> request(Object id, String message) {
		InFlightRequest request = InFlightRequest.awaited(id, JsonRpcLine.of(message));
		observe(request);
		CompletableFuture<JsonRpcLine> response;
		try {
			this.usage.beginSend();
			try {
				this.controller.awaitSettled();
				response = current().sendAwaited(request);
			}
			finally {
				this.usage.endSend();
			}
		}
		catch (RuntimeException ex) {
			request.failed(ex);
			if (ex instanceof McpStdioException) {
				return CompletableFuture.failedFuture(ex);
			}
			throw ex;
		}
		response.whenComplete((answer, ex) -> this.usage.touch());
		CompletableFuture<String> text = response.thenApply(JsonRpcLine::text);
		// a caller that gives up (cancels) lets the request go
		text.whenComplete((answer, ex) -> response.cancel(false));
		return text;
	}

	/**
	 * Observe a request from now, its send included (the start of a lazy or idle server,
	 * the wait for a restart): not a second one under an id in flight, which its process
	 * refuses.
	 */
	private void observe(InFlightRequest request) {
		RequestObserver observer = this.requests;
		if (observer == RequestObserver.NONE) {
			// nothing to keep from a duplicate: its process refuses it
			return;
		}
		StdioServerProcess current = this.controller.process();
		if (current != null && current.isPending(request)) {
			throw new IllegalArgumentException("A request with id " + request.id() + " is already pending");
		}
		observer.sending(request);
	}

	/**
	 * Return the process a message goes to, once the server has settled.
	 * @return the current process, which fails the send naming its exit if it ended
	 * @throws McpServerNotRunningException if the server is stopping, stopped or disabled
	 */
	private StdioServerProcess current() {
		StdioServerProcess current = this.controller.process();
		ServerState state = this.controller.state();
		if (state == ServerState.STOPPED || state == ServerState.STOPPING || state == ServerState.DISABLED
				|| state == ServerState.IDLE) {
			throw new McpServerNotRunningException(name(), McpStdioException.describe(name()) + " is "
					+ state.name().toLowerCase(Locale.ROOT) + "; start it first");
		}
		String failure = this.controller.status().lastFailure();
		ExitInfo exit = (current != null) ? current.exitInfo() : null;
		boolean exitSaysWhy = exit != null && exit.cause().isFailure();
		if (current == null || (state == ServerState.FAILED && failure != null && !exitSaysWhy)) {
			// no process tells why: the start that failed does
			throw new McpStdioException(name(), (failure != null) ? failure
					: McpStdioException.describe(name()) + " is " + state.name().toLowerCase(Locale.ROOT));
		}
		return current;
	}

	private String name() {
		return this.definition.name();
	}

	// ClientConnection

	@Override
	public void setSelfInitialize(boolean selfInitialize) {
		this.controller.terms().setSelfInitialize(selfInitialize);
	}

	@Override
	public void markInitialized() {
		this.controller.markInitialized();
	}

	@Override
	public void attach(MessageListener listener) {
		this.session = listener;
	}

	@Override
	public void detach(MessageListener listener) {
		if (this.session == listener) {
			this.session = MessageListener.NONE;
		}
	}

	@Override
	public void setClientRequestTimeout(Duration timeout) {
		this.controller.terms().setClientRequestTimeout(timeout, this.controller.status());
	}

	@Override
	public void observeRequests(RequestObserver observer) {
		this.requests = observer;
	}

	@Override
	public void startOnDemand() {
		if (this.definition.demand().onDemand()) {
			this.usage.touch();
			this.controller.startIfIdle();
		}
	}

	@Override
	public void joinStart() {
		this.controller.starts().joinStart();
	}

	@Override
	public void awaitSettled() {
		this.controller.awaitSettled();
	}

	@Override
	public void giveUp(String reason) {
		this.controller.stops().giveUp(reason);
	}

	@Override
	public long generation() {
		return this.controller.status().generation();
	}

	/**
	 * Takes the processes' messages and ends from the state machine to the client session
	 * attached now.
	 */
	private final class Routing implements MessageListener {

		@Override
		public void onMessage(JsonRpcLine message) {
			onMessage(message, null);
		}

		@Override
		public void onMessage(JsonRpcLine message, @Nullable InFlightRequest answered) {
			ServerConnection.this.usage.touch();
			ServerConnection.this.session.onMessage(message, answered);
		}

		@Override
		public void onExit(ExitInfo exit, List<InFlightRequest> unanswered) {
			ServerConnection.this.session.onExit(exit, unanswered);
		}

	}

}

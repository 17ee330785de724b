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

package dev.mcpstdio.ai;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;

import dev.mcpstdio.core.support.Waits;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.ExitInfo;
import dev.mcpstdio.core.JsonRpcLine;
import dev.mcpstdio.core.MessageListener;
import dev.mcpstdio.core.StdioServerSpec;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.ServerState;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCNotification;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCRequest;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse.JSONRPCError;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * An MCP client transport over a server managed by mcp-stdio, for the MCP Java SDK's
 * clients (and so Spring AI's): the server's lifecycle owns the process, so connecting
 * reuses the running process and closing only detaches. When the server runs a new
 * process (a restart, a start after an idle stop), the client's {@code initialize} is
 * replayed to it and the client is told that its tools may have changed, so that it goes
 * on without being rebuilt. Nothing is ever answered in the server's place: a request to
 * a server that does not run fails at once naming why, and the client's
 * {@code initialize} is bounded by the server's {@code startup-timeout}.
 *
 * @author mcp-stdio authors
 */
public class McpStdioClientTransport implements McpClientTransport {

	private static final Log logger = LogFactory.getLog(McpStdioClientTransport.class);

	/** Set while a thread delivers a server's message to the client. */
	private static final ThreadLocal<Boolean> delivering = new ThreadLocal<>();

	/**
	 * The key of the data of the JSON-RPC errors mcp-stdio makes itself: the server's
	 * name.
	 */
	static final String OWN_ERROR_SERVER = "server";

	private final McpStdioServer server;

	private final McpJsonMapper jsonMapper;

	private final JsonRpcLines lines;

	private final InitializeReplay replay;

	private final Scheduler scheduler;

	private final Session session = new Session();

	private final ClientSession client = new ClientSession();

	private final Object replayLock = new Object();

	/** Drops a response to an id the client never sent, or that was already answered. */
	private final SentRequests sent;

	/**
	 * Whether the application serves: a server that misses its start is then given up.
	 */
	private final BooleanSupplier serving;

	private volatile @Nullable Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler;

	private volatile boolean closed;

	/** The last connect: the client sends its first message before it completes. */
	private volatile CompletableFuture<Void> connected = CompletableFuture.completedFuture(null);

	/**
	 * Create a transport over a server.
	 * @param server the server, managed by mcp-stdio
	 * @param jsonMapper reads and writes the JSON-RPC messages
	 */
	public McpStdioClientTransport(McpStdioServer server, McpJsonMapper jsonMapper) {
		this(server, jsonMapper, Schedulers.boundedElastic(), server::isRunning);
	}

	/**
	 * Create a transport over a server.
	 * @param server the server, managed by mcp-stdio
	 * @param jsonMapper reads and writes the JSON-RPC messages
	 * @param scheduler where sends that must not block their thread, and deliveries, run
	 * @param serving whether the application serves: only then does a missed
	 * {@code startup-timeout} give the server up here (see {@link ServingWindow})
	 */
	McpStdioClientTransport(McpStdioServer server, McpJsonMapper jsonMapper, Scheduler scheduler,
			BooleanSupplier serving) {
		this.server = server;
		this.jsonMapper = jsonMapper;
		this.scheduler = scheduler;
		this.serving = serving;
		this.lines = new JsonRpcLines(server.name(), spec(), jsonMapper);
		this.replay = new InitializeReplay(server, this.lines);
		this.sent = new SentRequests(server.name(), spec().secrets(), System::nanoTime);
		server.addListener(new McpStdioServer.Listener() {

			@Override
			public void stateChanged(McpStdioServer changed, ServerState state) {
				// Called under the server's lock: act elsewhere
				if (state == ServerState.RUNNING) {
					McpStdioClientTransport.this.scheduler.schedule(McpStdioClientTransport.this::resumeQuietly);
				}
			}

		});
	}

	/**
	 * Return the server this transport talks to.
	 * @return the server
	 */
	public McpStdioServer server() {
		return this.server;
	}

	@Override
	public Mono<Void> connect(Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
		CompletableFuture<Void> connecting = new CompletableFuture<>();
		this.connected = connecting;
		// Now, not when the connect runs on the scheduler: an error delivered on the
		// scheduler may come first
		this.handler = handler;
		return Mono.<Void>fromRunnable(() -> {
			try {
				this.closed = false;
				this.server.clientConnection().attach(this.session);
				// Joins the start begun for all servers: a reconnect (after a failed
				// initialize) reuses the process, and one that ended is not run again
				this.server.clientConnection().joinStart();
				connecting.complete(null);
			}
			catch (RuntimeException ex) {
				connecting.completeExceptionally(ex);
				throw ex;
			}
		}).subscribeOn(this.scheduler);
	}

	@Override
	public Mono<Void> sendMessage(JSONRPCMessage message) {
		Mono<Void> send = Mono.fromRunnable(() -> sendToServer(message));
		// A thread that may block (the sync client's caller) hands the line to the writer
		// itself: one more thread hop per message costs more than the send. A
		// non-blocking thread must not wait for the pipe, nor must the thread that reads
		// stdout (a reply to a server's request): the server may be blocked writing to
		// us.
		return Mono.defer(() -> (Schedulers.isInNonBlockingThread() || delivering.get() != null)
				? send.subscribeOn(this.scheduler) : send);
	}

	private void sendToServer(JSONRPCMessage message) {
		awaitConnected();
		// While the server restarts, wait for the new process, so that the session is
		// resumed on it before this message
		this.server.clientConnection().awaitSettled();
		if (isInitialized(message) && !this.client.initializeSentTo(this.server.clientConnection().generation())) {
			// The process that answered initialize is gone (stopped for being idle, or
			// restarted): the replay to the next one sends its own
			return;
		}
		// An idle server starts now, so that its new process gets the handshake first
		this.server.clientConnection().startOnDemand();
		if (message instanceof JSONRPCRequest request) {
			if (McpSchema.METHOD_INITIALIZE.equals(request.method())) {
				// A new session: it is what a restarted process gets replayed
				this.client.initializeSent(request, this.server.clientConnection().generation());
				initialize(request);
				return;
			}
			resume();
			this.sent.sent(request.id(), request.method());
			try {
				this.server.send(this.lines.write(message), request.id());
			}
			catch (RuntimeException ex) {
				this.sent.answered(request.id());
				throw ex;
			}
			return;
		}
		if (!isInitialized(message)) {
			resume();
		}
		this.server.send(this.lines.write(message), null);
	}

	private static boolean isInitialized(JSONRPCMessage message) {
		return message instanceof JSONRPCNotification notification
				&& McpSchema.METHOD_NOTIFICATION_INITIALIZED.equals(notification.method());
	}

	/**
	 * Send the client's {@code initialize}, its answer bounded by the server's
	 * {@code startup-timeout} rather than by the client's own timeouts (Spring AI's are
	 * 20 s): the answer, or the failure, reaches the client from another thread.
	 */
	private void initialize(JSONRPCRequest request) {
		Duration timeout = this.server.definition().spec().startupTimeout();
		CompletableFuture<String> answer = this.server.request(request.id(), this.lines.write(request));
		if (answer.isCompletedExceptionally()) {
			// Not sent (the server does not run): the send fails, naming why
			throw failureOf(answer);
		}
		// A request given up on does not hold the drain of a stop
		answer.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
			.whenComplete((line, failure) -> this.scheduler
				.schedule(() -> initializeAnswered(request, line, failure, timeout)));
	}

	private void initializeAnswered(JSONRPCRequest request, @Nullable String line, @Nullable Throwable failure,
			Duration timeout) {
		if (line != null) {
			JSONRPCMessage answer = this.lines.read(line);
			if (answer instanceof JSONRPCResponse response) {
				if (response.error() == null) {
					this.server.clientConnection().markInitialized();
					this.client.initialized(response);
				}
				deliver(ServerErrors.sanitized(response, McpSchema.METHOD_INITIALIZE, spec()));
				return;
			}
			failure = new McpStdioException(this.server.name(),
					"MCP server '" + this.server.name() + "' answered initialize with a message that is not JSON-RPC");
		}
		Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause()
				: failure;
		String message;
		if (cause instanceof TimeoutException) {
			message = "MCP server '" + this.server.name() + "' did not answer initialize within its startup-timeout ("
					+ Waits.format(timeout) + "); raise mcp.stdio.servers." + this.server.name()
					+ ".startup-timeout if it is just slow to start";
			if (this.serving.getAsBoolean()) {
				// While the application serves, the server is stopped and FAILED (at
				// start-up, the initializer decides)
				giveUpInBackground(message);
			}
		}
		else {
			message = spec().sanitize(String.valueOf((cause != null) ? cause.getMessage() : null));
		}
		deliver(JSONRPCResponse.error(request.id(), new JSONRPCError(McpSchema.ErrorCodes.INTERNAL_ERROR, message,
				Map.of(OWN_ERROR_SERVER, this.server.name()))));
	}

	private static RuntimeException failureOf(CompletableFuture<String> failed) {
		try {
			failed.join();
			return new IllegalStateException("not failed");
		}
		catch (CompletionException ex) {
			return (ex.getCause() instanceof RuntimeException cause) ? cause : ex;
		}
	}

	private void giveUpInBackground(String reason) {
		// Its stop takes up to its shutdown bounds: the caller does not wait for them
		Thread thread = new Thread(() -> this.server.clientConnection().giveUp(reason),
				"mcp-stdio-give-up-" + this.server.name());
		thread.setDaemon(true);
		thread.start();
	}

	private StdioServerSpec spec() {
		return this.server.definition().spec();
	}

	private void awaitConnected() {
		// Bounded like the server's own start
		Waits.await(this.connected, this.server.definition().spec().startupTimeout().plusSeconds(10),
				this.server.name(), "start");
	}

	private void resumeQuietly() {
		try {
			resume();
		}
		catch (RuntimeException ex) {
			logger
				.warn("Could not resume the MCP session with server '" + this.server.name() + "': " + ex.getMessage());
		}
	}

	/**
	 * Replay the client's handshake when the server runs a process that has not seen it,
	 * then tell the client that the tools may have changed: the new process may offer
	 * others, and Spring AI refreshes its tool callbacks on that notification. Nothing
	 * else is resent: requests of the old process have failed.
	 */
	private void resume() {
		JSONRPCRequest initialize = this.client.replayFor(this.server.clientConnection().generation());
		if (this.closed || initialize == null) {
			return;
		}
		if (resumeOn(initialize)) {
			// Outside the replay's lock: the client lists the tools at once
			deliver(new JSONRPCNotification(McpSchema.METHOD_NOTIFICATION_TOOLS_LIST_CHANGED));
		}
	}

	/**
	 * Replay the client's initialize to the current process, once per process.
	 * @return whether it was replayed now and the server offers tools
	 */
	private boolean resumeOn(JSONRPCRequest initialize) {
		synchronized (this.replayLock) {
			long generation = this.server.clientConnection().generation();
			if (this.closed || this.client.replayFor(generation) == null
					|| this.server.state() != ServerState.RUNNING) {
				return false;
			}
			JSONRPCMessage answer = this.replay.replay(initialize);
			boolean offersTools = this.client.resumed(generation, answer);
			logger.info("Resumed the MCP session with server '" + this.server.name() + "' on its new process (pid "
					+ this.server.pid() + "): replayed initialize"
					+ (offersTools ? "; told the client that its tools may have changed" : ""));
			return offersTools;
		}
	}

	private void deliver(JSONRPCMessage message) {
		Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> current = this.handler;
		if (current == null) {
			return;
		}
		delivering.set(Boolean.TRUE);
		try {
			current.apply(Mono.just(message)).subscribe((ignored) -> {
			}, (ex) -> logger.warn("The MCP client of server '" + this.server.name() + "' failed on a message: "
					+ spec().sanitize(String.valueOf(ex.getMessage()))));
		}
		finally {
			delivering.remove();
		}
	}

	@Override
	public Mono<Void> closeGracefully() {
		return Mono.fromRunnable(() -> {
			// The server's lifecycle owns the process: closing the client only detaches
			this.closed = true;
			this.server.clientConnection().detach(this.session);
		});
	}

	@Override
	public void setExceptionHandler(Consumer<Throwable> handler) {
		// Failures reach the client as errors of its requests
	}

	@Override
	public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
		return this.jsonMapper.convertValue(data, typeRef);
	}

	@Override
	public String toString() {
		return "McpStdioClientTransport[" + this.server.name() + "]";
	}

	private final class Session implements MessageListener {

		@Override
		public void onMessage(JsonRpcLine line) {
			JSONRPCMessage message = McpStdioClientTransport.this.lines.read(line.text());
			if (message instanceof JSONRPCResponse response) {
				String method = McpStdioClientTransport.this.sent.accept(response.id());
				if (method == null) {
					// never sent or already answered: the client would warn for each
					return;
				}
				message = ServerErrors.sanitized(response, method, spec());
			}
			if (message != null) {
				deliver(message);
			}
		}

		@Override
		public void onExit(ExitInfo exit, List<Object> unansweredRequestIds) {
			if (unansweredRequestIds.isEmpty()) {
				return;
			}
			ServerState state = McpStdioClientTransport.this.server.state();
			boolean stopped = state == ServerState.STOPPING || state == ServerState.STOPPED;
			String message = stopped ? "MCP server '" + exit.serverName() + "' was stopped before it answered"
					: exit.message();
			Map<String, Object> data = Map.of(OWN_ERROR_SERVER, exit.serverName(), "exitCode", exit.exitCode(),
					"stderrTail", exit.stderrTail());
			for (Object id : unansweredRequestIds) {
				if (McpStdioClientTransport.this.sent.answered(id) == null) {
					// not the client's, or the client gave up on it long ago
					continue;
				}
				deliver(JSONRPCResponse.error(id,
						new JSONRPCError(McpSchema.ErrorCodes.INTERNAL_ERROR, message, data)));
			}
		}

	}

}

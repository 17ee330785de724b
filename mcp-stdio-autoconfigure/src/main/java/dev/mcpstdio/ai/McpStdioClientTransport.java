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

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.LongSupplier;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.core.server.io.JsonRpcLine;
import dev.mcpstdio.core.server.MessageListener;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.core.secrets.SecretSanitizer;
import dev.mcpstdio.core.secrets.SecretValues;
import dev.mcpstdio.core.support.Waits;
import dev.mcpstdio.lifecycle.ClientConnection;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.ServerListener;
import dev.mcpstdio.lifecycle.ServerState;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
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
 * An MCP client transport, for the MCP SDK's clients, over a server mcp-stdio manages.
 *
 * @author mcp-stdio authors
 */
public class McpStdioClientTransport implements McpClientTransport {

	private static final Log logger = LogFactory.getLog(McpStdioClientTransport.class);

	/** Set while a thread delivers a server's message to the client. */
	private static final ThreadLocal<Boolean> delivering = new ThreadLocal<>();

	private static final AtomicLong replayIds = new AtomicLong();

	/**
	 * The key of the server's name in the data of the JSON-RPC errors mcp-stdio makes.
	 */
	private static final String OWN_ERROR_SERVER = "server";

	private final McpStdioServer server;

	private final ClientConnection connection;

	private final McpJsonMapper jsonMapper;

	private final Scheduler scheduler;

	/**
	 * Whether the application serves: a server that misses its start is then given up.
	 */
	private final BooleanSupplier serving;

	/** Drops a response to an id the client never sent, and sanitizes the others. */
	private final ServerAnswers answers;

	private final Session session = new Session();

	private final Object replayLock = new Object();

	private volatile @Nullable Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler;

	private volatile boolean closed;

	/** The last connect: the client sends its first message before it completes. */
	private volatile CompletableFuture<Void> connected = CompletableFuture.completedFuture(null);

	/** The client's initialize, replayed to a process that has not seen it. */
	private volatile @Nullable JSONRPCRequest initialize;

	/** The process generation the client's initialize went to. */
	private volatile long initializeSentTo;

	/** The process generation that answered the client's initialize, 0 for none. */
	private volatile long initializedBy;

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
	 * {@code startup-timeout} give the server up here (see
	 * {@link McpStdioAiAutoConfiguration.StartupClientInitializer})
	 */
	McpStdioClientTransport(McpStdioServer server, McpJsonMapper jsonMapper, Scheduler scheduler,
			BooleanSupplier serving) {
		this.server = server;
		this.connection = server.clientConnection();
		this.jsonMapper = jsonMapper;
		this.scheduler = scheduler;
		this.serving = serving;
		this.answers = new ServerAnswers(server.name(), spec().secrets(), System::nanoTime);
		server.addListener(this.session);
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
				// The server's lifecycle owns the process: a client attaches to it
				this.connection.attach(this.session);
				// Joins the start begun for all servers: a reconnect (after a failed
				// initialize) reuses the process, and one that ended is not run again
				this.connection.joinStart();
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
		// Bounded like the server's own start
		Waits.await(this.connected, spec().startupTimeout().plusSeconds(10), this.server.name(), "start");
		// While the server restarts, wait for the new process, so that the session is
		// resumed on it before this message
		this.connection.awaitSettled();
		boolean initialized = message instanceof JSONRPCNotification notification
				&& McpSchema.METHOD_NOTIFICATION_INITIALIZED.equals(notification.method());
		if (initialized && this.initializeSentTo != this.connection.generation()) {
			// The process that answered initialize is gone (stopped for being idle, or
			// restarted): the replay to the next one sends its own
			return;
		}
		// An idle server starts now, so that its new process gets the handshake first
		this.connection.startOnDemand();
		if (message instanceof JSONRPCRequest request && McpSchema.METHOD_INITIALIZE.equals(request.method())) {
			// A new session: it is what a restarted process gets replayed
			this.initialize = request;
			this.initializeSentTo = this.connection.generation();
			initialize(request);
			return;
		}
		if (!initialized) {
			resume();
		}
		if (!(message instanceof JSONRPCRequest request)) {
			this.server.send(write(message), null);
			return;
		}
		this.answers.sent(request.id(), request.method());
		try {
			this.server.send(write(message), request.id());
		}
		catch (RuntimeException ex) {
			// Nothing answers in the server's place: the send fails, naming why
			this.answers.answered(request.id());
			throw ex;
		}
	}

	/**
	 * Send the client's {@code initialize}, its answer bounded by the server's
	 * {@code startup-timeout} rather than by the client's own timeouts (Spring AI's are
	 * 20 s): the answer, or the failure, reaches the client from another thread.
	 */
	private void initialize(JSONRPCRequest request) {
		Duration timeout = spec().startupTimeout();
		CompletableFuture<String> answer = this.server.request(request.id(), write(request));
		try {
			answer.getNow(null);
		}
		catch (CompletionException ex) {
			// Not sent (the server does not run): the send fails, naming why
			throw (ex.getCause() instanceof RuntimeException cause) ? cause : ex;
		}
		// A request given up on does not hold the drain of a stop
		answer.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
			.whenComplete((line, failure) -> this.scheduler
				.schedule(() -> initializeAnswered(request, line, failure, timeout)));
	}

	private void initializeAnswered(JSONRPCRequest request, @Nullable String line, @Nullable Throwable failure,
			Duration timeout) {
		if (line != null && read(line, true) instanceof JSONRPCResponse response) {
			if (response.error() == null) {
				this.connection.markInitialized();
				this.initializedBy = this.initializeSentTo;
			}
			deliver(this.answers.sanitized(response, McpSchema.METHOD_INITIALIZE));
			return;
		}
		Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause()
				: failure;
		String message;
		if (line != null) {
			message = spec().sanitize(
					"MCP server '" + this.server.name() + "' answered initialize with a message that is not JSON-RPC");
		}
		else if (cause instanceof TimeoutException) {
			message = "MCP server '" + this.server.name() + "' did not answer initialize within its startup-timeout ("
					+ Waits.format(timeout) + "); raise mcp.stdio.servers." + this.server.name()
					+ ".startup-timeout if it is just slow to start";
			if (this.serving.getAsBoolean()) {
				// While the application serves, the server is stopped and FAILED (at
				// start-up, the initializer decides)
				giveUpInBackground(this.server, message);
			}
		}
		else {
			message = spec().sanitize(String.valueOf((cause != null) ? cause.getMessage() : null));
		}
		deliver(JSONRPCResponse.error(request.id(), new JSONRPCError(McpSchema.ErrorCodes.INTERNAL_ERROR, message,
				Map.of(OWN_ERROR_SERVER, this.server.name()))));
	}

	/**
	 * Give up on a server in the background: its stop takes up to its shutdown bounds.
	 * @param server the server
	 * @param reason why
	 */
	static void giveUpInBackground(McpStdioServer server, String reason) {
		inBackground("mcp-stdio-give-up-" + server.name(), () -> server.clientConnection().giveUp(reason));
	}

	/**
	 * Run a task on a daemon thread of its own.
	 * @param thread the thread's name
	 * @param task the task
	 */
	static void inBackground(String thread, Runnable task) {
		Thread background = new Thread(task, thread);
		background.setDaemon(true);
		background.start();
	}

	/**
	 * Return the error mcp-stdio made for a server (its exit, its stop, a missed
	 * {@code startup-timeout}) that a client failed with.
	 * @param failure what the client threw, or a cause of it
	 * @param server the server's name
	 * @return the error, or {@code null} when it is another
	 */
	static @Nullable JSONRPCError ownError(Throwable failure, String server) {
		return (failure instanceof McpError error && error.getJsonRpcError() != null
				&& error.getJsonRpcError().data() instanceof Map<?, ?> data
				&& server.equals(data.get(OWN_ERROR_SERVER))) ? error.getJsonRpcError() : null;
	}

	private StdioServerSpec spec() {
		return this.server.definition().spec();
	}

	/**
	 * Resume the client's session on a process that has not seen its {@code initialize}
	 * (a restart, a start after an idle stop), once per process, so that the client goes
	 * on without being rebuilt: the handshake is replayed, then the client is told that
	 * its tools may have changed (Spring AI lists them again). Nothing else is resent:
	 * requests of the old process have failed.
	 */
	private void resume() {
		if (this.closed || replayFor(this.connection.generation()) == null) {
			return;
		}
		boolean offersTools;
		synchronized (this.replayLock) {
			long generation = this.connection.generation();
			JSONRPCRequest request = replayFor(generation);
			if (this.closed || request == null || this.server.state() != ServerState.RUNNING) {
				return;
			}
			JSONRPCMessage answer = replay(request);
			this.initializedBy = generation;
			offersTools = answer instanceof JSONRPCResponse response && response.result() instanceof Map<?, ?> result
					&& result.get("capabilities") instanceof Map<?, ?> capabilities
					&& capabilities.get("tools") != null;
			logger.info("Resumed the MCP session with server '" + this.server.name() + "' on its new process (pid "
					+ this.server.pid() + "): replayed initialize"
					+ (offersTools ? "; told the client that its tools may have changed" : ""));
		}
		if (offersTools) {
			// Outside the lock: the client lists the tools at once
			deliver(new JSONRPCNotification(McpSchema.METHOD_NOTIFICATION_TOOLS_LIST_CHANGED));
		}
	}

	/**
	 * The client's initialize when the process of that generation has not answered it.
	 */
	private @Nullable JSONRPCRequest replayFor(long generation) {
		long answeredBy = this.initializedBy;
		return (answeredBy == 0 || answeredBy == generation) ? null : this.initialize;
	}

	/**
	 * Replay the client's initialize to the current process under an id of its own, its
	 * answer bounded by the server's {@code startup-timeout}, then send
	 * {@code notifications/initialized}.
	 * @return the process's answer ({@code null} when it was not JSON-RPC)
	 * @throws McpStdioException when the process refused it or did not answer in time
	 */
	private @Nullable JSONRPCMessage replay(JSONRPCRequest initialize) {
		String id = "mcp-stdio-replay-" + replayIds.incrementAndGet();
		CompletableFuture<String> answered = this.server.request(id, write(
				new JSONRPCRequest(McpSchema.JSONRPC_VERSION, McpSchema.METHOD_INITIALIZE, id, initialize.params())));
		String line;
		try {
			line = Waits.await(answered, spec().startupTimeout(), this.server.name(), "answer the replayed initialize");
		}
		finally {
			// Given up on: it must not hold the drain of a stop
			answered.cancel(false);
		}
		JSONRPCMessage answer = read(line, true);
		if (answer instanceof JSONRPCResponse response && response.error() != null) {
			throw new McpStdioException(this.server.name(),
					"MCP server '" + this.server.name() + "' refused the replayed initialize: " + SecretSanitizer
						.quote(String.valueOf(response.error().message()), ServerAnswers.MAX_TEXT, spec().secrets()));
		}
		this.server.send(write(new JSONRPCNotification(McpSchema.METHOD_NOTIFICATION_INITIALIZED)), null);
		this.connection.markInitialized();
		return answer;
	}

	private String write(JSONRPCMessage message) {
		try {
			return this.jsonMapper.writeValueAsString(message);
		}
		catch (IOException ex) {
			throw new McpStdioException(this.server.name(),
					"Could not serialize a message for MCP server '" + this.server.name() + "': " + ex.getMessage(),
					ex);
		}
	}

	/**
	 * Read an answer to {@code tools/call} at once into the client's type.
	 * @return the answer, or {@code null} when the type does not take it
	 */
	private @Nullable JSONRPCMessage readToolAnswer(String line) {
		try {
			ToolAnswer answer = this.jsonMapper.readValue(line, ToolAnswer.class);
			return new JSONRPCResponse(answer.jsonrpc(), answer.id(), answer.result(), answer.error());
		}
		catch (Exception ex) {
			// a result the client's type does not take fails where the client reads it
			return null;
		}
	}

	/** Read a line of the server's, skipping one that is not JSON-RPC with a WARN. */
	private @Nullable JSONRPCMessage read(String line, boolean response) {
		try {
			return readOrThrow(line, response);
		}
		catch (Exception ex) {
			skipped(line, ex);
			return null;
		}
	}

	private JSONRPCMessage readOrThrow(String line, boolean response) throws IOException {
		// A response, the most frequent, in one pass: the SDK reads a map, then
		// converts it
		return response ? this.jsonMapper.readValue(line, JSONRPCResponse.class)
				: McpSchema.deserializeJsonRpcMessage(this.jsonMapper, line);
	}

	private void skipped(String line, Exception ex) {
		// Invalid JSON, a message of no known kind, a response with a null id
		logger.warn("Skipping a message from MCP server '" + this.server.name() + "' that is not JSON-RPC ("
				+ SecretSanitizer.quote(String.valueOf(ex.getMessage()), 200, spec().secrets()) + "): "
				+ SecretSanitizer.quote(line, 200, spec().secrets()));
	}

	/**
	 * Read a line of the server's: one that answers a request the client waits for but
	 * cannot be read (a number too long, a result of no known shape) fails that request
	 * at once, rather than leaving it to the client's timeout.
	 */
	private @Nullable JSONRPCMessage readLine(JsonRpcLine line) {
		if (this.answers.passesAsWritten(line)) {
			JSONRPCMessage answer = readToolAnswer(line.text());
			if (answer != null) {
				return answer;
			}
		}
		try {
			return readOrThrow(line.text(), line.isResponse());
		}
		catch (Exception ex) {
			String id = line.isResponse() ? line.id() : null;
			if (id == null || this.answers.answered(id) == null) {
				skipped(line.text(), ex);
				return null;
			}
			String message = "MCP server '" + this.server.name() + "' sent an answer that could not be read: "
					+ SecretSanitizer.quote(String.valueOf(ex.getMessage()), 300, spec().secrets());
			logger.warn(message);
			deliver(JSONRPCResponse.error(id, new JSONRPCError(McpSchema.ErrorCodes.INTERNAL_ERROR, message,
					Map.of(OWN_ERROR_SERVER, this.server.name()))));
			return null;
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
			this.connection.detach(this.session);
		});
	}

	@Override
	@SuppressWarnings("unchecked")
	public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
		if (typeRef.getType() instanceof Class<?> type && type.isInstance(data)) {
			return (T) data;
		}
		return this.jsonMapper.convertValue(data, typeRef);
	}

	@Override
	public String toString() {
		return "McpStdioClientTransport[" + this.server.name() + "]";
	}

	/** The client's session on the server: its messages, its exits, its new processes. */
	private final class Session implements MessageListener, ServerListener {

		@Override
		public void onMessage(JsonRpcLine line) {
			JSONRPCMessage message = readLine(line);
			if (message instanceof JSONRPCResponse response) {
				String method = McpStdioClientTransport.this.answers.accept(response.id());
				if (method == null) {
					// never sent or already answered: the client would warn for each
					return;
				}
				message = McpStdioClientTransport.this.answers.sanitized(response, method);
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
				if (McpStdioClientTransport.this.answers.answered(id) == null) {
					// not the client's, or the client gave up on it long ago
					continue;
				}
				// The server's exit, never an answer in its place
				deliver(JSONRPCResponse.error(id,
						new JSONRPCError(McpSchema.ErrorCodes.INTERNAL_ERROR, message, data)));
			}
		}

		@Override
		public void stateChanged(McpStdioServer changed, ServerState state) {
			// Called under the server's lock: act elsewhere
			if (state == ServerState.RUNNING) {
				McpStdioClientTransport.this.scheduler.schedule(() -> {
					try {
						resume();
					}
					catch (RuntimeException ex) {
						logger.warn("Could not resume the MCP session with server '" + changed.name() + "': "
								+ ex.getMessage());
					}
				});
			}
		}

	}

	/** A response to {@code tools/call}, its result of the client's type. */
	@JsonIgnoreProperties(ignoreUnknown = true)
	record ToolAnswer(String jsonrpc, Object id, @Nullable CallToolResult result, @Nullable JSONRPCError error) {
	}

	/**
	 * One server's answers to its client: matched to the requests sent, then sanitized.
	 */
	static final class ServerAnswers {

		/**
		 * The most requests remembered: beyond that the oldest is forgotten (its client
		 * gave up on it long ago, at its request timeout), and its late answer is dropped
		 * like any other.
		 */
		static final int CAPACITY = 4096;

		/** Warnings logged at once before the rate applies. */
		static final int FREE_WARNINGS = 10;

		/** At most one more warning per this long, counting the drops not logged. */
		static final long WARNING_INTERVAL_NANOS = 10_000_000_000L;

		/**
		 * The longest text of an error, or of an {@code initialize} result, passed on.
		 */
		static final int MAX_TEXT = 8192;

		/** The most values of an error's data walked; the rest is left out. */
		private static final int MAX_VALUES = 1024;

		/** Data nested deeper is masked whole rather than walked. */
		private static final int MAX_DEPTH = 16;

		private static final int ID_QUOTE_LENGTH = 60;

		/**
		 * The results whose texts are masked: what Spring AI logs (a tool's error result
		 * among them) or hands on.
		 */
		private static final Set<String> MASKED_RESULTS = Set.of(McpSchema.METHOD_INITIALIZE,
				McpSchema.METHOD_TOOLS_LIST, McpSchema.METHOD_PROMPT_LIST, McpSchema.METHOD_RESOURCES_LIST,
				McpSchema.METHOD_RESOURCES_TEMPLATES_LIST, McpSchema.METHOD_TOOLS_CALL);

		private final String serverName;

		private final SecretValues secrets;

		private final LongSupplier nanoTime;

		/**
		 * The methods of the requests sent and not answered yet, by id, oldest first: a
		 * response to an id never sent (or already answered) is dropped here with a
		 * warning at a bounded rate, instead of reaching the client, whose session logs a
		 * warning for each one.
		 */
		private final Map<String, String> pending = new LinkedHashMap<>(16, 0.75f, false) {

			@Override
			protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
				return size() > CAPACITY;
			}

		};

		private long warnings;

		private long notLogged;

		private long lastWarning;

		ServerAnswers(String serverName, SecretValues secrets, LongSupplier nanoTime) {
			this.serverName = serverName;
			this.secrets = secrets;
			this.nanoTime = nanoTime;
		}

		/**
		 * Remember a request the client sends.
		 * @param id its id
		 * @param method its method
		 */
		synchronized void sent(Object id, String method) {
			// "7" and 7 are one id, as the server's own bookkeeping has it
			this.pending.put(id.toString(), method);
		}

		/**
		 * Whether a line answers {@code tools/call} with nothing the sanitizing would
		 * change: no escape, no hidden character, no secret value, and, where values are
		 * secret, no number whose Java text could differ from the line's.
		 * @param line the server's line
		 * @return whether it may be read as it is written
		 */
		boolean passesAsWritten(JsonRpcLine line) {
			String text = line.text();
			synchronized (this) {
				if (!line.isResponse() || !McpSchema.METHOD_TOOLS_CALL.equals(this.pending.get(line.id()))) {
					return false;
				}
			}
			return text.indexOf('\\') < 0 && SecretSanitizer.printable(text).equals(text)
					&& (this.secrets == SecretValues.NONE
							|| (this.secrets.mask(text).equals(text) && !line.hasFraction()));
		}

		/**
		 * Take the request a response (or an error for the server's exit) answers.
		 * @param id the response's id
		 * @return the request's method, or {@code null} when no request with that id
		 * waits
		 */
		synchronized @Nullable String answered(@Nullable Object id) {
			return (id != null) ? this.pending.remove(id.toString()) : null;
		}

		/**
		 * Take a response from the server: the request it answers; if none waits for it,
		 * it is to be dropped, and a warning says so (at a bounded rate).
		 * @param id the response's id
		 * @return the method of the request it answers, or {@code null} when the client
		 * does not get it
		 */
		@Nullable String accept(@Nullable Object id) {
			long suppressed;
			synchronized (this) {
				String method = answered(id);
				if (method != null) {
					return method;
				}
				long now = this.nanoTime.getAsLong();
				if (this.warnings >= FREE_WARNINGS && now - this.lastWarning < WARNING_INTERVAL_NANOS) {
					this.notLogged++;
					return null;
				}
				this.warnings++;
				this.lastWarning = now;
				suppressed = this.notLogged;
				this.notLogged = 0;
			}
			logger.warn("Dropped a response of MCP server '" + this.serverName + "' to id "
					+ SecretSanitizer.quote(String.valueOf(id), ID_QUOTE_LENGTH, this.secrets)
					+ ", which was never sent or already answered" + ((suppressed > 0)
							? " (" + suppressed + " more such responses were dropped without a log line)" : ""));
			return null;
		}

		/**
		 * Return a response fit to pass on, and so for Spring AI and its log. An error's
		 * message and every text and key of its data get the server's secret values and
		 * what looks like a secret masked, numbers that are a secret value too, each
		 * bounded in length ({@code Invalid API key: ****** (token=******)}). The results
		 * of {@code initialize}, of the lists (server info, instructions, tool names and
		 * descriptions) and of tool calls get the server's secret values masked. Control
		 * characters are escaped in both.
		 * @param response the server's response
		 * @param method the method of the request it answers
		 * @return the response to give the client
		 */
		JSONRPCResponse sanitized(JSONRPCResponse response, String method) {
			JSONRPCError error = response.error();
			if (error != null) {
				JSONRPCError sanitized = new JSONRPCError(error.code(),
						SecretSanitizer.quote(String.valueOf(error.message()), MAX_TEXT, this.secrets),
						new Walk(true, true, MAX_VALUES).value(error.data(), 0));
				return new JSONRPCResponse(response.jsonrpc(), response.id(), null, sanitized);
			}
			if (!MASKED_RESULTS.contains(method) || response.result() == null
					|| response.result() instanceof CallToolResult) {
				return response;
			}
			// initialize's texts are logged by the MCP SDK: bounded; a list's go to the
			// model
			Walk walk = new Walk(false, McpSchema.METHOD_INITIALIZE.equals(method), Integer.MAX_VALUE);
			return new JSONRPCResponse(response.jsonrpc(), response.id(), walk.value(response.result(), 0), null);
		}

		/**
		 * One walk over a value, masking the secrets in its texts and keys, within a
		 * budget.
		 */
		private final class Walk {

			/** Whether what looks like a secret is masked too, as in an error. */
			private final boolean shapes;

			private final boolean bounded;

			private int budget;

			Walk(boolean shapes, boolean bounded, int budget) {
				this.shapes = shapes;
				this.bounded = bounded;
				this.budget = budget;
			}

			@Nullable Object value(@Nullable Object data, int depth) {
				if (--this.budget < 0) {
					return null;
				}
				if (data instanceof String text) {
					return text(text);
				}
				if (data instanceof Number number) {
					return ServerAnswers.this.secrets.mask(number.toString()).equals(number.toString()) ? number
							: SecretSanitizer.MASK;
				}
				if ((data instanceof Map || data instanceof List) && depth >= MAX_DEPTH) {
					return SecretSanitizer.MASK;
				}
				if (data instanceof Map<?, ?> map) {
					Map<Object, @Nullable Object> sanitized = new LinkedHashMap<>();
					for (Map.Entry<?, ?> entry : map.entrySet()) {
						if (this.budget <= 0) {
							break;
						}
						String key = String.valueOf(entry.getKey());
						boolean secret = this.shapes && entry.getValue() instanceof String
								&& SecretSanitizer.isSecretName(key);
						sanitized.put(text(key), secret ? SecretSanitizer.MASK : value(entry.getValue(), depth + 1));
					}
					return sanitized;
				}
				if (data instanceof List<?> list) {
					List<@Nullable Object> sanitized = new ArrayList<>(Math.min(list.size(), 1024));
					for (Object value : list) {
						if (this.budget <= 0) {
							break;
						}
						sanitized.add(value(value, depth + 1));
					}
					return sanitized;
				}
				// booleans, null
				return data;
			}

			private String text(String text) {
				if (this.shapes) {
					return SecretSanitizer.quote(text, MAX_TEXT, ServerAnswers.this.secrets);
				}
				String masked = SecretSanitizer.printable(ServerAnswers.this.secrets.mask(text));
				return (this.bounded && masked.length() > MAX_TEXT) ? masked.substring(0, MAX_TEXT) + "..." : masked;
			}

		}

	}

}

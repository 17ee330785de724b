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
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongPredicate;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.core.support.Threads;
import dev.mcpstdio.core.support.Waits;
import dev.mcpstdio.lifecycle.ClientConnection;
import dev.mcpstdio.lifecycle.McpStdioServer;
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
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse.JSONRPCError;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import org.springframework.core.log.LogMessage;

/**
 * An MCP client transport, for the MCP SDK's clients, over a server mcp-stdio manages.
 *
 * @author mcp-stdio authors
 */
public class McpStdioClientTransport implements McpClientTransport {

	private static final Log logger = LogFactory.getLog(McpStdioClientTransport.class);

	/**
	 * The key of the server's name in the data of the JSON-RPC errors mcp-stdio makes.
	 */
	static final String OWN_ERROR_SERVER = "server";

	/** Set while a thread delivers a server's message to the client. */
	private static final ThreadLocal<Boolean> delivering = new ThreadLocal<>();

	private final McpStdioServer server;

	private final ClientConnection connection;

	private final McpJsonMapper jsonMapper;

	private final Scheduler scheduler;

	/** Sanitizes the answers the client gets. */
	private final ServerAnswers answers;

	private final ServerLines lines;

	private final SessionReplay replay;

	private final ClientSession session;

	/** Once settled, before a message: the session resumed on a new process. */
	private final LongPredicate settledForMessage;

	/** Once settled, before {@code notifications/initialized}. */
	private final LongPredicate settledForInitialized;

	private volatile @Nullable Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler;

	/** Logs a failure of the client on a message delivered: one for all deliveries. */
	private final Consumer<Throwable> clientFailure = this::clientFailed;

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
	 * @param scheduler where sends that must not block their thread, the answer to
	 * {@code initialize} and the session's resume run
	 * @param serving whether the application serves: only then does a missed
	 * {@code startup-timeout} give the server up here (see
	 * {@link StartupClientInitializer})
	 */
	McpStdioClientTransport(McpStdioServer server, McpJsonMapper jsonMapper, Scheduler scheduler,
			BooleanSupplier serving) {
		this.server = server;
		this.connection = server.clientConnection();
		this.jsonMapper = jsonMapper;
		this.scheduler = scheduler;
		this.answers = new ServerAnswers(spec().secrets());
		this.lines = new ServerLines(server.name(), jsonMapper, spec().secrets(), this.answers);
		this.replay = new SessionReplay(this, server, scheduler, serving);
		this.settledForMessage = (generation) -> this.replay.settled(generation, false);
		this.settledForInitialized = (generation) -> this.replay.settled(generation, true);
		this.session = new ClientSession(this, server, this.lines, this.answers,
				new DroppedResponses(server.name(), spec().secrets(), System::nanoTime));
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
				this.replay.closed(false);
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
		CompletableFuture<Void> connecting = this.connected;
		if (!connecting.isDone()) {
			// Bounded like the server's own start
			Waits.await(connecting, spec().startupTimeout().plusSeconds(10), this.server.name(), "start");
		}
		else if (connecting.isCompletedExceptionally()) {
			// the connect failed: the send fails with its failure, as the wait would
			Waits.await(connecting, Duration.ZERO, this.server.name(), "start");
		}
		if (message instanceof JSONRPCRequest request && McpSchema.METHOD_INITIALIZE.equals(request.method())) {
			this.replay.initialize(request);
			return;
		}
		boolean initialized = message instanceof JSONRPCNotification notification
				&& McpSchema.METHOD_NOTIFICATION_INITIALIZED.equals(notification.method());
		// The send waits once for a settled state (an idle server started, a restart
		// done), then the session is resumed on a new process before this message; a
		// failed send fails, naming why: nothing answers in the server's place
		this.connection.send(write(message), (message instanceof JSONRPCRequest request) ? request.id() : null,
				initialized ? this.settledForInitialized : this.settledForMessage);
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
		Threads.daemon(task, thread).start();
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

	ServerAnswers answers() {
		return this.answers;
	}

	SessionReplay replay() {
		return this.replay;
	}

	Scheduler scheduler() {
		return this.scheduler;
	}

	ServerLines lines() {
		return this.lines;
	}

	String write(JSONRPCMessage message) {
		try {
			return this.jsonMapper.writeValueAsString(message);
		}
		catch (IOException ex) {
			throw new McpStdioException(this.server.name(), "Could not serialize a message for "
					+ McpStdioException.describe(this.server.name()) + ": " + ex.getMessage(), ex);
		}
	}

	private void clientFailed(Throwable ex) {
		logger.warn(LogMessage.format("The MCP client of server '%s' failed on a message: %s", this.server.name(),
				spec().sanitize(String.valueOf(ex.getMessage()))));
	}

	void deliver(JSONRPCMessage message) {
		Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> current = this.handler;
		if (current == null) {
			return;
		}
		delivering.set(Boolean.TRUE);
		try {
			current.apply(Mono.just(message)).subscribe((ignored) -> {
			}, this.clientFailure);
		}
		finally {
			delivering.remove();
		}
	}

	@Override
	public Mono<Void> closeGracefully() {
		return Mono.fromRunnable(() -> {
			// The server's lifecycle owns the process: closing the client only detaches
			this.replay.closed(true);
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

	/** A response to {@code tools/call}, its result of the client's type. */
	@JsonIgnoreProperties(ignoreUnknown = true)
	record ToolAnswer(String jsonrpc, Object id, @Nullable CallToolResult result, @Nullable JSONRPCError error) {
	}

}

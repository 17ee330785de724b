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
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.secrets.SecretSanitizer;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.core.support.Waits;
import dev.mcpstdio.lifecycle.ClientConnection;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.ServerState;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCNotification;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCRequest;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse.JSONRPCError;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.scheduler.Scheduler;

import org.springframework.core.log.LogMessage;

/**
 * The client's MCP session with one server across its processes: its {@code initialize}
 * sent and answered, then replayed to each new process that has not seen it.
 *
 * @author mcp-stdio authors
 */
final class SessionReplay {

	private static final Log logger = LogFactory.getLog(McpStdioClientTransport.class);

	private static final AtomicLong replayIds = new AtomicLong();

	private final McpStdioClientTransport transport;

	private final McpStdioServer server;

	private final ClientConnection connection;

	private final Scheduler scheduler;

	/**
	 * Whether the application serves: a server that misses its start is then given up.
	 */
	private final BooleanSupplier serving;

	private final Object replayLock = new Object();

	private volatile boolean closed;

	/** The client's initialize, replayed to a process that has not seen it. */
	private volatile @Nullable JSONRPCRequest initialize;

	/** The process generation the client's initialize went to. */
	private volatile long initializeSentTo;

	/** The process generation that answered the client's initialize, 0 for none. */
	private volatile long initializedBy;

	SessionReplay(McpStdioClientTransport transport, McpStdioServer server, Scheduler scheduler,
			BooleanSupplier serving) {
		this.transport = transport;
		this.server = server;
		this.connection = server.clientConnection();
		this.scheduler = scheduler;
		this.serving = serving;
	}

	void closed(boolean closed) {
		this.closed = closed;
	}

	/**
	 * The server has settled for a message of the client's, which goes to the process of
	 * that generation: a process that has not seen the session's {@code initialize} gets
	 * it first.
	 * @param generation the process's generation
	 * @param initialized whether the message is {@code notifications/initialized}
	 * @return whether the message is sent
	 */
	boolean settled(long generation, boolean initialized) {
		if (initialized) {
			// The process that answered initialize is gone (stopped for being idle, or
			// restarted) when it is not this one: the replay to the next one sends its
			// own
			return this.initializeSentTo == generation;
		}
		if (!this.closed && replayFor(generation) != null) {
			resume();
		}
		return true;
	}

	/**
	 * Send the client's {@code initialize}, its answer bounded by the server's
	 * {@code startup-timeout} rather than by the client's own timeouts (Spring AI's are
	 * 20 s): the answer, or the failure, reaches the client from another thread.
	 */
	void initialize(JSONRPCRequest request) {
		// A new session: it is what a restarted process gets replayed
		this.initialize = request;
		Duration timeout = spec().startupTimeout();
		CompletableFuture<String> answer = this.server.request(request.id(), this.transport.write(request));
		// the process it went to, the send having waited for a settled state
		this.initializeSentTo = this.connection.generation();
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
		if (line != null && this.transport.lines().read(line, true) instanceof JSONRPCResponse response) {
			if (response.error() == null) {
				this.connection.markInitialized();
				this.initializedBy = this.initializeSentTo;
			}
			this.transport.deliver(this.transport.answers().sanitized(response, McpSchema.METHOD_INITIALIZE));
			return;
		}
		Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause()
				: failure;
		String name = this.server.name();
		String message;
		if (line != null) {
			message = spec().sanitize(
					McpStdioException.describe(name) + " answered initialize with a message that is not JSON-RPC");
		}
		else if (cause instanceof TimeoutException) {
			message = McpStdioException.describe(name) + " did not answer initialize within its startup-timeout ("
					+ Waits.format(timeout) + "); raise mcp.stdio.servers." + name
					+ ".startup-timeout if it is just slow to start";
			if (this.serving.getAsBoolean()) {
				// While the application serves, the server is stopped and FAILED (at
				// start-up, the initializer decides)
				McpStdioClientTransport.giveUpInBackground(this.server, message);
			}
		}
		else {
			message = spec().sanitize(String.valueOf((cause != null) ? cause.getMessage() : null));
		}
		this.transport.deliver(JSONRPCResponse.error(request.id(), new JSONRPCError(McpSchema.ErrorCodes.INTERNAL_ERROR,
				message, Map.of(McpStdioClientTransport.OWN_ERROR_SERVER, name))));
	}

	/**
	 * Resume the client's session on a process that has not seen its {@code initialize}
	 * (a restart, a start after an idle stop), once per process, so that the client goes
	 * on without being rebuilt: the handshake is replayed, then the client is told that
	 * its tools may have changed (Spring AI lists them again). Nothing else is resent:
	 * requests of the old process have failed.
	 */
	void resume() {
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
			logger.info(LogMessage.format(
					"Resumed the MCP session with server '%s' on its new process (pid %s): replayed initialize%s",
					this.server.name(), this.server.pid(),
					offersTools ? "; told the client that its tools may have changed" : ""));
		}
		if (offersTools) {
			// Outside the lock: the client lists the tools at once
			this.transport.deliver(new JSONRPCNotification(McpSchema.METHOD_NOTIFICATION_TOOLS_LIST_CHANGED));
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
		CompletableFuture<String> answered = this.server.request(id, this.transport.write(
				new JSONRPCRequest(McpSchema.JSONRPC_VERSION, McpSchema.METHOD_INITIALIZE, id, initialize.params())));
		String line;
		try {
			line = Waits.await(answered, spec().startupTimeout(), this.server.name(), "answer the replayed initialize");
		}
		finally {
			// Given up on: it must not hold the drain of a stop
			answered.cancel(false);
		}
		JSONRPCMessage answer = this.transport.lines().read(line, true);
		if (answer instanceof JSONRPCResponse response && response.error() != null) {
			throw new McpStdioException(this.server.name(),
					McpStdioException.describe(this.server.name()) + " refused the replayed initialize: "
							+ SecretSanitizer.quote(String.valueOf(response.error().message()), ServerAnswers.MAX_TEXT,
									spec().secrets()));
		}
		this.server.send(this.transport.write(new JSONRPCNotification(McpSchema.METHOD_NOTIFICATION_INITIALIZED)),
				null);
		this.connection.markInitialized();
		return answer;
	}

	private StdioServerSpec spec() {
		return this.server.definition().spec();
	}

}

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

import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.server.io.JsonRpcLine;
import dev.mcpstdio.core.server.io.ProcessPipes;
import dev.mcpstdio.core.support.Waits;
import org.jspecify.annotations.Nullable;

/**
 * The sending side of one server process: each message checked against the process's
 * state, a request entered in its ledger, the line written to its stdin, and a failed
 * write turned into the exit that explains it.
 *
 * @author mcp-stdio authors
 */
final class ProcessSends {

	/** How long a send that hit a broken pipe waits for the exit to be observed. */
	private static final long EXIT_OBSERVATION_MILLIS = 2000;

	private static final AtomicLong handshakes = new AtomicLong();

	private final StdioServerProcess server;

	ProcessSends(StdioServerProcess server) {
		this.server = server;
	}

	/** See {@link StdioServerProcess#send(JsonRpcLine, Object)}. */
	void send(JsonRpcLine message, @Nullable Object requestId) {
		if (requestId != null) {
			send(InFlightRequest.of(requestId, message, null));
			return;
		}
		checkSendable();
		// a cancellation the client sends closes its request: it holds no drain
		this.server.ledger.notifying(message);
		write(message.text());
	}

	/** See {@link StdioServerProcess#send(InFlightRequest)}. */
	void send(InFlightRequest request) {
		checkSendable();
		write(request, open(request));
	}

	private JsonRpcLine open(InFlightRequest request) {
		RequestLedger.Opened opened = this.server.ledger.open(request);
		if (opened == RequestLedger.Opened.DUPLICATE) {
			throw new IllegalArgumentException("A request with id " + request.id() + " is already pending");
		}
		if (opened == RequestLedger.Opened.AFTER_EXIT) {
			// the exit failed the requests it found before this one came
			throw awaitExitException(null);
		}
		if (opened == RequestLedger.Opened.FULL) {
			throw new McpStdioException(this.server.name(),
					McpStdioException.describe(this.server.name()) + " has " + RequestLedger.CAPACITY
							+ " requests in flight unanswered: none more is sent until some are answered or given up");
		}
		return request.opened();
	}

	/** See {@link StdioServerProcess#sendAwaited(InFlightRequest)}. */
	CompletableFuture<JsonRpcLine> sendAwaited(InFlightRequest request) {
		CompletableFuture<JsonRpcLine> response = Objects.requireNonNull(request.future(), "a future");
		JsonRpcLine line;
		try {
			checkSendable();
			line = open(request);
		}
		catch (McpStdioException ex) {
			request.failed(ex);
			return response;
		}
		try {
			write(request, line);
		}
		catch (RuntimeException ex) {
			request.failed(ex);
		}
		return response;
	}

	private void write(InFlightRequest request, JsonRpcLine line) {
		try {
			write(line.text());
		}
		catch (RuntimeException ex) {
			this.server.ledger.close(request.key());
			throw ex;
		}
	}

	/** See {@link StdioServerProcess#handshake(Duration)}. */
	void handshake(Duration timeout) {
		String id = "mcp-stdio-initialize-" + handshakes.incrementAndGet();
		CompletableFuture<JsonRpcLine> answer = sendAwaited(InFlightRequest.awaited(id,
				JsonRpcLine.of("{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"method\":\"initialize\",\"params\":"
						+ "{\"protocolVersion\":\"" + StdioServerProcess.PROTOCOL_VERSION + "\",\"capabilities\":{},"
						+ "\"clientInfo\":{\"name\":\"mcp-stdio\",\"version\":\"1.0\"}}}")));
		JsonRpcLine response;
		try {
			response = Waits.await(answer, timeout, this.server.name(), "answer initialize",
					"; raise mcp.stdio.servers." + this.server.name() + ".startup-timeout if it is just slow to start");
		}
		finally {
			answer.cancel(false);
		}
		if (response.isError()) {
			throw new McpStdioException(this.server.name(), McpStdioException.describe(this.server.name())
					+ " refused initialize: " + this.server.spec.sanitize(String.valueOf(response.errorMessage())));
		}
		send(JsonRpcLine.of("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"), null);
	}

	private void checkSendable() {
		if (this.server.classifier.stopRequested) {
			throw this.server.notRunning("is stopping or stopped");
		}
		ExitInfo exitInfo = this.server.exit.getNow(null);
		if (exitInfo != null) {
			throw exitInfo.toException();
		}
		if (this.server.classifier.failure != null) {
			throw awaitExitException(null);
		}
	}

	private void write(String message) {
		if (message.indexOf('\n') >= 0 || message.indexOf('\r') >= 0) {
			throw new IllegalArgumentException("A JSON-RPC message sent over stdio must be one line");
		}
		try {
			this.server.pipes.write(message);
		}
		catch (ProcessPipes.WriteTimeoutException ex) {
			throw new McpStdioException(this.server.name(),
					McpStdioException.describe(this.server.name()) + " did not read its stdin within "
							+ Waits.format(this.server.spec.sendTimeout()) + "; " + ex.getMessage()
							+ ". Raise mcp.stdio.servers." + this.server.name()
							+ ".send-timeout if the server is just slow");
		}
		catch (IOException ex) {
			throw awaitExitException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new McpStdioException(this.server.name(),
					"Interrupted while sending to " + McpStdioException.describe(this.server.name()), ex);
		}
	}

	/**
	 * A write failed or the server is failing: wait, bounded, for the exit to be
	 * observed, so that the caller learns why instead of seeing a bare I/O error.
	 */
	private RuntimeException awaitExitException(@Nullable Throwable cause) {
		ExitInfo exitInfo = this.server
			.awaitExit(EXIT_OBSERVATION_MILLIS + this.server.spec.shutdown().terminate().toMillis());
		if (exitInfo == null && !this.server.process.isAlive()) {
			// It has ended: its exit is told once its last output was read, which a busy
			// machine may take longer for
			exitInfo = this.server.awaitExit(ShutdownTimeouts.FINAL_EXIT_WAIT.toMillis());
		}
		if (this.server.classifier.stopRequested && (exitInfo == null || !exitInfo.cause().isFailure())) {
			return this.server.notRunning("was stopped while the message was being written");
		}
		if (exitInfo != null) {
			return exitInfo.toException();
		}
		String reason = (cause != null) ? cause.getMessage() : this.server.classifier.failure;
		this.server.fail("its stdin broke (" + reason + ") while the process kept running");
		return new McpStdioException(this.server.name(),
				"Could not write to " + McpStdioException.describe(this.server.name()) + ": " + reason
						+ "; the process is still running and is being terminated",
				cause);
	}

}

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

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.core.server.InFlightRequest;
import dev.mcpstdio.core.server.MessageListener;
import dev.mcpstdio.core.server.io.JsonRpcLine;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.ServerListener;
import dev.mcpstdio.lifecycle.ServerState;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse.JSONRPCError;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;

/**
 * A client's session on one server, as the transport attaches it: the server's messages
 * (each response with the entry of the request it answers), its exits, its new processes.
 *
 * @author mcp-stdio authors
 */
final class ClientSession implements MessageListener, ServerListener {

	private static final Log logger = LogFactory.getLog(McpStdioClientTransport.class);

	private final McpStdioClientTransport transport;

	private final McpStdioServer server;

	private final ServerLines lines;

	private final ServerAnswers answers;

	/** Warns, at a bounded rate, of the responses the client does not get. */
	private final DroppedResponses dropped;

	/** Hands a message to the client: one for all lines. */
	private final Consumer<JSONRPCMessage> deliver;

	ClientSession(McpStdioClientTransport transport, McpStdioServer server, ServerLines lines, ServerAnswers answers,
			DroppedResponses dropped) {
		this.transport = transport;
		this.server = server;
		this.lines = lines;
		this.answers = answers;
		this.dropped = dropped;
		this.deliver = transport::deliver;
	}

	@Override
	public void onMessage(JsonRpcLine line) {
		onMessage(line, null);
	}

	@Override
	public void onMessage(JsonRpcLine line, @Nullable InFlightRequest answered) {
		// the request it answers is read from its entry: one the client sent, or none
		String method = (answered != null && answered.client() == this)
				? Objects.requireNonNullElse(answered.method(), "") : null;
		JSONRPCMessage message = this.lines.read(line, method, this.deliver);
		if (message instanceof JSONRPCResponse response) {
			if (method == null) {
				// never sent or already answered: the client would warn for each
				this.dropped.dropped(response.id());
				return;
			}
			message = this.answers.sanitized(response, method);
		}
		if (message != null) {
			this.transport.deliver(message);
		}
	}

	@Override
	public void onExit(ExitInfo exit, List<InFlightRequest> unanswered) {
		if (unanswered.isEmpty()) {
			return;
		}
		ServerState state = this.server.state();
		boolean stopped = state == ServerState.STOPPING || state == ServerState.STOPPED;
		String message = stopped ? McpStdioException.describe(exit.serverName()) + " was stopped before it answered"
				: exit.message();
		Map<String, Object> data = Map.of(McpStdioClientTransport.OWN_ERROR_SERVER, exit.serverName(), "exitCode",
				exit.exitCode(), "stderrTail", exit.stderrTail());
		for (InFlightRequest request : unanswered) {
			if (request.client() != this) {
				// not the client's
				continue;
			}
			// The server's exit, never an answer in its place
			this.transport.deliver(JSONRPCResponse.error(request.id(),
					new JSONRPCError(McpSchema.ErrorCodes.INTERNAL_ERROR, message, data)));
		}
	}

	@Override
	public void stateChanged(McpStdioServer changed, ServerState state) {
		// Called under the server's lock: act elsewhere
		if (state == ServerState.RUNNING) {
			this.transport.scheduler().schedule(() -> {
				try {
					this.transport.replay().resume();
				}
				catch (RuntimeException ex) {
					logger.warn(LogMessage.format("Could not resume the MCP session with server '%s': %s",
							changed.name(), ex.getMessage()));
				}
			});
		}
	}

}

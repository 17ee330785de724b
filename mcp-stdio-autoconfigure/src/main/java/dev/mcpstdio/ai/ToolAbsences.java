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

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.ServerState;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;

/**
 * What is left out of Spring AI's tool callbacks, and why, told once: a server that does
 * not run or cannot list its tools, a client that cannot list them, a tool whose name
 * another server's tool has already.
 *
 * @author mcp-stdio authors
 */
final class ToolAbsences {

	// Logged as the transport's own messages
	private static final Log logger = LogFactory.getLog(McpStdioClientTransport.class);

	/** How long a client whose listing failed is left out before it is asked again. */
	static final long RETRY_NANOS = 5_000_000_000L;

	private final ToolGathering.LeftOut leftOut;

	private final Set<String> duplicatesTold = ConcurrentHashMap.newKeySet();

	/**
	 * Create what tells the absences.
	 * @param leftOut which absences of servers were told, shared with start-up
	 */
	ToolAbsences(ToolGathering.LeftOut leftOut) {
		this.leftOut = leftOut;
	}

	/**
	 * The server lists its tools again: its next absence is told again.
	 * @param server the server
	 */
	void present(McpStdioServer server) {
		this.leftOut.present(server);
	}

	/**
	 * Say, once per connection and name, that a tool is left out for its name.
	 * @param connection the connection of the client that offers it
	 * @param name the tool's name, which another server's tool has already
	 */
	void duplicate(String connection, String name) {
		if (this.duplicatesTold.add(connection + "/" + name)) {
			logger.warn(LogMessage.format("%s offers a tool named '%s', a name another server's tool has already: "
					+ "it is left out (a McpToolNamePrefixGenerator bean can give the tools of each server names of "
					+ "their own)", McpStdioException.describe(connection), name));
		}
	}

	/**
	 * Say that a client of no mcp-stdio server could not list its tools.
	 * @param connection the client's connection name
	 * @param failure why
	 */
	void unlisted(String connection, Throwable failure) {
		logger.warn(LogMessage.format("The MCP client '%s' could not list its tools; they are left out of "
				+ "Spring AI's tool callbacks until it can: %s", connection, messageOf(failure)));
	}

	/**
	 * Say, once per absence, that a server's tools are left out.
	 * @param server the server
	 * @param unlisted why it could not list its tools, or {@code null} when it does not
	 * run
	 */
	void tellLeftOut(McpStdioServer server, @Nullable String unlisted) {
		if (!this.leftOut.newAbsence(server)) {
			return;
		}
		if (unlisted != null) {
			logger.warn(LogMessage.format(
					"%s did not list its tools: they are left out of Spring AI's tool callbacks until it does (%s)",
					McpStdioException.describe(server.name()), unlisted));
			return;
		}
		// an operator's stop: STOPPING for the moment of the stop only
		ServerState state = (server.state() == ServerState.STOPPING) ? ServerState.STOPPED : server.state();
		String reason = reason(server);
		String because = (reason != null) ? " (" + reason + ")" : "";
		logger.warn(LogMessage.format(
				"%s is %s: its tools are left out of Spring AI's tool callbacks until it runs again%s",
				McpStdioException.describe(server.name()), state, because));
	}

	/** Why a server does not run: its last failure or exit when it failed. */
	private static @Nullable String reason(McpStdioServer server) {
		if (server.state() != ServerState.FAILED) {
			return null;
		}
		String failure = server.lastFailure();
		ExitInfo exit = server.lastExit();
		return (failure != null) ? failure : (exit != null) ? exit.message() : null;
	}

	static String messageOf(Throwable failure) {
		// the SDK wraps a failed initialize: the innermost message says why
		String message = String.valueOf(failure.getMessage());
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause.getMessage() != null) {
				message = cause.getMessage();
			}
		}
		return message;
	}

}

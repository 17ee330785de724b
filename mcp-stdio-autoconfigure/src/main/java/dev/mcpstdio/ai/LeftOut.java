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

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.ServerState;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The servers whose tools are left out of the tool callbacks, one WARN per absence.
 * <p>
 * An absence is one process generation of a server that does not serve its tools: it ends
 * when the server lists them again.
 *
 * @author mcp-stdio authors
 */
final class LeftOut {

	private static final Log logger = LogFactory.getLog(McpStdioClientTransport.class);

	/** The generation whose absence was told, by server. */
	private final Map<String, Long> told = new ConcurrentHashMap<>();

	/**
	 * Say that a server's tools are left out, unless this absence was told already.
	 * @param server the server
	 * @param reason why, or {@code null}
	 */
	void tell(McpStdioServer server, @Nullable String reason) {
		if (told(server)) {
			// an operator's stop: STOPPING for the moment of the stop only
			ServerState state = (server.state() == ServerState.STOPPING) ? ServerState.STOPPED : server.state();
			logger.warn("MCP server '" + server.name() + "' is " + state + ": its tools are left out of Spring AI's "
					+ "tool callbacks until it runs again" + ((reason != null) ? " (" + reason + ")" : ""));
		}
	}

	/**
	 * Say that a server that runs could not list its tools, unless this absence was told
	 * already.
	 * @param server the server
	 * @param reason why
	 */
	void tellUnlisted(McpStdioServer server, String reason) {
		if (told(server)) {
			logger.warn("MCP server '" + server.name() + "' did not list its tools: they are left out of Spring AI's "
					+ "tool callbacks until it does (" + reason + ")");
		}
	}

	/**
	 * Record that this absence of a server was told by another line, such as the one of a
	 * start-up that left it out.
	 * @param server the server
	 * @return whether it had not been told yet
	 */
	boolean told(McpStdioServer server) {
		Long generation = server.clientConnection().generation();
		return !generation.equals(this.told.put(server.name(), generation));
	}

	/**
	 * The server lists its tools again: its next absence is told again.
	 * @param server the server
	 */
	void present(McpStdioServer server) {
		this.told.remove(server.name());
	}

}

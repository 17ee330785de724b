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

import dev.mcpstdio.core.server.StdioServerProcess.StopResult;

/**
 * Learns what happens to a server, for metrics and logs.
 *
 * @author mcp-stdio authors
 * @see McpStdioServer#addListener(ServerListener)
 */
public interface ServerListener {

	default void stateChanged(McpStdioServer server, ServerState state) {
	}

	default void stopped(McpStdioServer server, StopResult result) {
	}

	default void restarted(McpStdioServer server) {
	}

	/**
	 * The server was stopped for good: removed by a reload, its context closed, or, for
	 * an instance of a per-user server, gone (idle, failed, or stopped to make room).
	 * What a listener keeps for it is to be let go.
	 * @param server the server
	 */
	default void closed(McpStdioServer server) {
	}

}

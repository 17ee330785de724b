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

import java.util.List;

import dev.mcpstdio.core.server.io.JsonRpcLine;
import org.jspecify.annotations.Nullable;

/**
 * Receives what an MCP server process sends and learns when it ends.
 *
 * @author mcp-stdio authors
 */
public interface MessageListener {

	/**
	 * Called on the process's stdout thread for every JSON-RPC message (one JSON value
	 * per line) that is not a response to a request made through
	 * {@link StdioServerProcess#request}. Must return quickly.
	 * @param message the message, scanned once as it was read
	 */
	void onMessage(JsonRpcLine message);

	/**
	 * Called on the process's stdout thread for every JSON-RPC message that is not a
	 * response to a request made through {@link StdioServerProcess#request}, with the
	 * entry of the request it answers, closed. Must return quickly.
	 * @param message the message, scanned once as it was read
	 * @param answered the request it answers, or {@code null} when it answers none in
	 * flight (not a response, an id never sent, or one already answered)
	 */
	default void onMessage(JsonRpcLine message, @Nullable InFlightRequest answered) {
		onMessage(message);
	}

	/**
	 * Called once when the process has ended, after every message it wrote was delivered.
	 * @param exit how it ended
	 * @param unanswered the requests sent with
	 * {@link StdioServerProcess#send(InFlightRequest)} that got no response, failed by
	 * the exit
	 */
	default void onExit(ExitInfo exit, List<InFlightRequest> unanswered) {
	}

	/** A listener that ignores everything. */
	MessageListener NONE = (message) -> {
	};

}

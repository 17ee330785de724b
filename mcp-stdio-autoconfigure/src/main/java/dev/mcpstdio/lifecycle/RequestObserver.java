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

import java.util.List;

import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.core.server.io.JsonRpcLine;
import org.jspecify.annotations.Nullable;

/**
 * Learns of every JSON-RPC request sent to one server and of how each ended.
 *
 * @author mcp-stdio authors
 * @see ClientConnection#observeRequests(RequestObserver)
 */
public interface RequestObserver {

	// McpStdioServer's send and request are the one way requests reach a server, and its
	// messages and its process's end come back through the server too. Calls come from
	// the sending threads and the thread that reads the server's stdout: they must return
	// quickly and never block.

	/** An observer that observes nothing. */
	RequestObserver NONE = (id, message) -> null;

	/**
	 * A request is about to be sent.
	 * @param id its id
	 * @param message the request
	 * @return the request under observation, or {@code null} when it is not observed
	 */
	@Nullable ObservedRequest sending(Object id, JsonRpcLine message);

	/**
	 * A message that is not a request is about to be sent: a notification (such as
	 * {@code notifications/cancelled}) or a response to a request of the server.
	 * @param message the message
	 */
	default void notifying(JsonRpcLine message) {
	}

	/**
	 * The server sent a message that was not the answer to a
	 * {@link McpStdioServer#request(Object, String)}.
	 * @param message the message
	 */
	default void received(JsonRpcLine message) {
	}

	/**
	 * The server's process ended.
	 * @param exit how it ended
	 * @param unansweredRequestIds the requests sent with
	 * {@link McpStdioServer#send(String, Object)} that got no response
	 */
	default void exited(ExitInfo exit, List<Object> unansweredRequestIds) {
	}

	/**
	 * One request under observation, as its sender sees it.
	 */
	interface ObservedRequest {

		/**
		 * Return the line to write: the request, with trace context added where a tracer
		 * asked for it.
		 * @return the line
		 */
		JsonRpcLine message();

		/**
		 * The request could not be sent (it never reached the server), or the future of a
		 * {@link McpStdioServer#request(Object, String)} completed.
		 * @param response the response, or {@code null} when it failed
		 * @param failure why it failed (its send, the process ended, the caller cancelled
		 * it), or {@code null}
		 */
		void completed(@Nullable JsonRpcLine response, @Nullable Throwable failure);

	}

}

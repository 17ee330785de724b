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

import dev.mcpstdio.core.server.InFlightRequest;

/**
 * Learns of every JSON-RPC request sent to one server and of how each ended.
 *
 * @author mcp-stdio authors
 * @see ClientConnection#observeRequests(RequestObserver)
 */
public interface RequestObserver {

	// McpStdioServer's send and request are the one way requests reach a server. The
	// observer attaches to each request's entry in the process's ledger, which tells it
	// once how the request ended (answered, failed, cancelled, no answer within the
	// client's timeout, cut short by the exit): calls come from the sending threads, the
	// thread that reads the server's stdout and the scheduler, and must return quickly
	// and never block.

	/** An observer that observes nothing. */
	RequestObserver NONE = (request) -> {
	};

	/**
	 * A request is about to be sent: attach what observes it with
	 * {@link InFlightRequest#observe}, or nothing when it is not observed.
	 * @param request the request's entry
	 */
	void sending(InFlightRequest request);

}

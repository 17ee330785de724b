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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import dev.mcpstdio.core.support.Waits;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.io.SecretSanitizer;
import dev.mcpstdio.lifecycle.McpStdioServer;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCNotification;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCRequest;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import org.jspecify.annotations.Nullable;

/**
 * Replays a client's {@code initialize} to a server process that has not seen it: under
 * an id of its own, its answer bounded by the server's {@code startup-timeout}, then
 * {@code notifications/initialized}.
 *
 * @author mcp-stdio authors
 */
final class InitializeReplay {

	private static final AtomicLong ids = new AtomicLong();

	private final McpStdioServer server;

	private final JsonRpcLines lines;

	InitializeReplay(McpStdioServer server, JsonRpcLines lines) {
		this.server = server;
		this.lines = lines;
	}

	/**
	 * Replay to the server's current process.
	 * @param initialize the client's initialize request
	 * @return the process's answer ({@code null} when it was not JSON-RPC)
	 * @throws McpStdioException when the process refused it or did not answer in time
	 */
	@Nullable JSONRPCMessage replay(JSONRPCRequest initialize) {
		String id = "mcp-stdio-replay-" + ids.incrementAndGet();
		JSONRPCRequest replayed = new JSONRPCRequest(McpSchema.JSONRPC_VERSION, McpSchema.METHOD_INITIALIZE, id,
				initialize.params());
		Duration timeout = this.server.definition().spec().startupTimeout();
		CompletableFuture<String> answered = this.server.request(id, this.lines.write(replayed));
		String line;
		try {
			line = Waits.await(answered, timeout, this.server.name(), "answer the replayed initialize");
		}
		finally {
			// Given up on: it must not hold the drain of a stop
			answered.cancel(false);
		}
		JSONRPCMessage answer = this.lines.read(line);
		if (answer instanceof JSONRPCResponse response && response.error() != null) {
			throw new McpStdioException(this.server.name(),
					"MCP server '" + this.server.name() + "' refused the replayed initialize: "
							+ SecretSanitizer.quote(String.valueOf(response.error().message()), ServerErrors.MAX_TEXT,
									this.server.definition().spec().secrets()));
		}
		this.server.send(this.lines.write(new JSONRPCNotification(McpSchema.METHOD_NOTIFICATION_INITIALIZED)), null);
		this.server.clientConnection().markInitialized();
		return answer;
	}

}

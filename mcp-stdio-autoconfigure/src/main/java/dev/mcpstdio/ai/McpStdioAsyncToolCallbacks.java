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

import dev.mcpstdio.lifecycle.McpStdioServers;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.Tool;

import org.springframework.ai.mcp.AsyncMcpToolCallback;
import org.springframework.ai.mcp.AsyncMcpToolCallbackProvider;
import org.springframework.ai.mcp.McpConnectionInfo;
import org.springframework.ai.mcp.McpToolsChangedEvent;
import org.springframework.ai.tool.ToolCallback;

/**
 * The application's tool callbacks over Spring AI's async MCP clients, gathered client by
 * client.
 *
 * @author mcp-stdio authors
 */
public class McpStdioAsyncToolCallbacks extends AsyncMcpToolCallbackProvider {

	private final ToolGathering gathering;

	@SuppressWarnings("deprecation")
	public McpStdioAsyncToolCallbacks(List<McpAsyncClient> clients, McpStdioServers servers,
			ServerClients serverClients, ToolGathering.Customizers customizers, ToolGathering.LeftOut leftOut) {
		// A AsyncMcpToolCallbackProvider, as Spring AI's own that it replaces, so that
		// Spring AI treats it as an MCP provider; the superclass's own gathering is not
		// used
		super((connection, tool) -> false, List.of());
		this.gathering = new ToolGathering(clients.stream().map((client) -> client(client, customizers)).toList(),
				servers, (server, toolsChanged) -> client(serverClients.async(server, toolsChanged), customizers),
				customizers, leftOut);
	}

	private static ToolGathering.Client client(McpAsyncClient client, ToolGathering.Customizers customizers) {
		return new ToolGathering.Client(() -> new McpConnectionInfo(client.getClientCapabilities(),
				client.getClientInfo(), client.getCurrentInitializationResult()), () -> {
					if (!client.isInitialized()) {
						// a client the gathering made, of a server that came later
						client.initialize().block();
					}
					McpSchema.ListToolsResult result = client.listTools().block();
					return (result != null) ? result.tools() : List.<Tool>of();
				},
				(tool, name) -> AsyncMcpToolCallback.builder()
					.mcpClient(client)
					.tool(tool)
					.prefixedToolName(name)
					.toolContextToMcpMetaConverter(customizers.meta())
					.build(),
				client::close);
	}

	@Override
	public ToolCallback[] getToolCallbacks() {
		return this.gathering.gather();
	}

	@Override
	public void invalidateCache() {
		this.gathering.invalidate();
	}

	@Override
	public void onApplicationEvent(McpToolsChangedEvent event) {
		this.gathering.changed(event.getConnectionName(), event.getTools());
	}

}

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
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import dev.mcpstdio.lifecycle.McpStdioServer;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.mcp.client.common.autoconfigure.NamedClientMcpTransport;
import org.springframework.ai.mcp.client.common.autoconfigure.configurer.McpAsyncClientConfigurer;
import org.springframework.ai.mcp.client.common.autoconfigure.configurer.McpSyncClientConfigurer;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Makes the transports and clients of mcp-stdio servers: Spring AI's clients at start-up,
 * and clients of its own for servers that came later (added or changed by a reload),
 * named as Spring AI names its own.
 *
 * @author mcp-stdio authors
 * @param requestTimeout {@code spring.ai.mcp.client.request-timeout}
 * @param serving whether the application serves: only then is a server that misses its
 * {@code startup-timeout} given up by its transport
 * @param clientName {@code spring.ai.mcp.client.name}
 * @param clientVersion {@code spring.ai.mcp.client.version}
 * @param syncCustomizers the application's customizers of Spring AI's sync clients
 * @param asyncCustomizers the application's customizers of Spring AI's async clients
 */
public record ServerClients(Duration requestTimeout, BooleanSupplier serving, String clientName, String clientVersion,
		ObjectProvider<McpSyncClientConfigurer> syncCustomizers,
		ObjectProvider<McpAsyncClientConfigurer> asyncCustomizers) {

	private static final McpJsonMapper JSON_MAPPER = new JacksonMcpJsonMapper(JsonMapper.shared());

	/**
	 * Return a transport over a server, for a client that performs the handshake itself.
	 * @param server the server
	 * @return the transport, named after the server
	 */
	public NamedClientMcpTransport transport(McpStdioServer server) {
		server.clientConnection().setSelfInitialize(false);
		// A request older than this has been given up by the client: it must not hold
		// the drain step of a stop
		server.clientConnection().setClientRequestTimeout(this.requestTimeout);
		return new NamedClientMcpTransport(server.name(),
				new McpStdioClientTransport(server, JSON_MAPPER, Schedulers.boundedElastic(), this.serving));
	}

	/**
	 * Return a new sync client of a server, initialized on its first listing.
	 * @param server the server
	 * @param toolsChanged takes the tools the server says changed
	 * @return the client
	 */
	McpSyncClient sync(McpStdioServer server, Consumer<List<Tool>> toolsChanged) {
		McpClient.SyncSpec spec = McpClient.sync(transport(server).transport())
			.clientInfo(info(server))
			.requestTimeout(this.requestTimeout);
		McpSyncClientConfigurer customizers = this.syncCustomizers.getIfAvailable();
		spec = (customizers != null) ? customizers.configure(server.name(), spec) : spec;
		return spec.toolsChangeConsumer(toolsChanged).build();
	}

	/**
	 * Return a new async client of a server, initialized on its first listing.
	 * @param server the server
	 * @param toolsChanged takes the tools the server says changed
	 * @return the client
	 */
	McpAsyncClient async(McpStdioServer server, Consumer<List<Tool>> toolsChanged) {
		McpClient.AsyncSpec spec = McpClient.async(transport(server).transport())
			.clientInfo(info(server))
			.requestTimeout(this.requestTimeout);
		McpAsyncClientConfigurer customizers = this.asyncCustomizers.getIfAvailable();
		spec = (customizers != null) ? customizers.configure(server.name(), spec) : spec;
		return spec.toolsChangeConsumer((tools) -> Mono.fromRunnable(() -> toolsChanged.accept(tools))).build();
	}

	private McpSchema.Implementation info(McpStdioServer server) {
		return new McpSchema.Implementation(this.clientName + " - " + server.name(), server.name(), this.clientVersion);
	}

}

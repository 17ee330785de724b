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

package dev.mcpstdio.bench.transport;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.mcpstdio.ai.McpStdioClientTransport;
import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.test.TestHost;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

/**
 * One MCP client over one stdio server, through mcp-stdio's transport or the SDK's.
 *
 * @author mcp-stdio authors
 */
public final class Connection implements AutoCloseable {

	/** Spring AI's default request timeout. */
	static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(20);

	private final McpSyncClient client;

	private final @Nullable McpStdioServer server;

	private Connection(McpSyncClient client, @Nullable McpStdioServer server) {
		this.client = client;
		this.server = server;
	}

	static Connection open(Side side, String name, List<String> command, Markers markers) {
		Map<String, String> env = Map.of(Markers.VARIABLE, markers.value());
		JacksonMcpJsonMapper mapper = new JacksonMcpJsonMapper(JsonMapper.shared());
		if (side == Side.OURS) {
			McpStdioServer server = server(name, command, env);
			return new Connection(client(new McpStdioClientTransport(server, mapper)), server);
		}
		ServerParameters parameters = ServerParameters.builder(command.get(0))
			.args(command.subList(1, command.size()))
			.env(env)
			.build();
		return new Connection(client(new StdioClientTransport(parameters, mapper)), null);
	}

	private static McpSyncClient client(McpClientTransport transport) {
		return McpClient.sync(transport).requestTimeout(REQUEST_TIMEOUT).build();
	}

	/**
	 * The one place this harness builds an mcp-stdio server outside Spring: with the
	 * defaults of a configured server, restarts off, the handshake left to the client (as
	 * the auto-configuration builds it for Spring AI), no observations.
	 */
	private static McpStdioServer server(String name, List<String> command, Map<String, String> env) {
		StdioServerSpec spec = SpecDefaults
			.of(name, command.get(0), command.subList(1, command.size()).toArray(String[]::new))
			.withEnv(env);
		McpStdioServer server = new McpStdioServer(SpecDefaults.definition(spec), TestHost.shared());
		server.clientConnection().setSelfInitialize(false);
		return server;
	}

	McpSyncClient client() {
		return this.client;
	}

	/**
	 * Close the client; with mcp-stdio also stop the server, whose lifecycle owns the
	 * process (closing a client only detaches it).
	 */
	@Override
	public void close() {
		try {
			this.client.closeGracefully();
		}
		finally {
			if (this.server != null) {
				this.server.stopServer();
			}
		}
	}

	/**
	 * Find an executable on the {@code PATH}.
	 * @param name its name
	 * @return its path
	 */
	public static String executable(String name) {
		for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(File.pathSeparator)) {
			Path candidate = Path.of(dir, name);
			if (Files.isExecutable(candidate)) {
				return candidate.toString();
			}
		}
		throw new IllegalStateException(name + " not found on PATH");
	}

	enum Side {

		OURS("mcp-stdio"), THEIRS("SDK stdio");

		private final String label;

		Side(String label) {
			this.label = label;
		}

		String label() {
			return this.label;
		}

	}

}

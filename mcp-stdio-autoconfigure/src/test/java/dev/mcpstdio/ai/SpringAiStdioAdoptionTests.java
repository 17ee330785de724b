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

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import dev.mcpstdio.McpStdioConfigurationException;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.RestartPolicy;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.ai.mcp.client.common.autoconfigure.NamedClientMcpTransport;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.ResolvableType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Servers configured for Spring AI's own stdio transport
 * ({@code spring.ai.mcp.client.stdio.*}) run through mcp-stdio: real Spring AI clients
 * see the same servers as with Spring AI's transport, each with one process.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(OutputCaptureExtension.class)
@ExtendWith(NoProcessLeft.class)
class SpringAiStdioAdoptionTests {

	private static final String CONNECTIONS = "spring.ai.mcp.client.stdio.connections.";

	private final Fixtures fixtures;

	@TempDir
	Path temp;

	SpringAiStdioAdoptionTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void clientsToolsAndCallsAreTheSameAsWithSpringAisOwnTransport() {
		String[] servers = AiTestSupport.properties(springAiServer("demo"), springAiServer("other"),
				springAiServer("third"));
		Observed own = observe(false, servers);
		Observed adopted = observe(true, servers);
		assertThat(own.clients()).containsExactlyInAnyOrder("spring-ai-mcp-client - demo",
				"spring-ai-mcp-client - other", "spring-ai-mcp-client - third");
		assertThat(own.tools()).hasSize(12);
		// three servers with the same four tools: Spring AI renames the tools of two
		// (alt_1_echo, ...), chosen by the order of its clients, which adoption keeps
		assertThat(own.callbacks()).hasSize(12).doesNotHaveDuplicates().contains("echo", "alt_1_echo");
		assertThat(own.echo()).isEqualTo("the same either way");
		assertThat(adopted).isEqualTo(own);
	}

	/**
	 * Run an application with the given Spring AI servers and record what its Spring AI
	 * clients see.
	 */
	private Observed observe(boolean adopt, String... servers) {
		// the servers of a run before this one may still be going: Spring AI closes its
		// clients by McpSyncClient.close(), which starts the transport's graceful close
		// (SIGTERM, then wait for the exit) and returns without waiting for it
		this.fixtures.assertNoneAlive(NoProcessLeft.BOUND);
		List<Observed> observed = new ArrayList<>();
		AiTestSupport.runner()
			.withPropertyValues(servers)
			.withPropertyValues("mcp.stdio.adopt-spring-ai-stdio=" + adopt)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				List<McpSyncClient> clients = clients(context);
				// the input schema compared as a value: the test server's JSON key order
				// varies from one process to the next
				List<List<Object>> tools = new ArrayList<>();
				for (McpSyncClient client : clients) {
					client.listTools()
						.tools()
						.forEach((tool) -> tools.add(List.of(client.getClientInfo().name(), tool.name(),
								tool.description(), tool.inputSchema())));
				}
				McpSyncClient demo = client(clients, "demo");
				String echo = AiTestSupport.text(demo.callTool(
						CallToolRequest.builder("echo").arguments(Map.of("text", "the same either way")).build()));
				ToolCallback[] callbacks = context.getBean("mcpToolCallbacks", ToolCallbackProvider.class)
					.getToolCallbacks();
				long demoPid = Long
					.parseLong(AiTestSupport.text(demo.callTool(CallToolRequest.builder("pid").build())));
				// one process per server, whoever runs it
				assertThat(this.fixtures.alive()).hasSize(3).contains(demoPid);
				McpStdioServers registry = context.getBean(McpStdioServers.class);
				String[] transportBeans = context.getBeanNamesForType(
						ResolvableType.forClassWithGenerics(List.class, NamedClientMcpTransport.class));
				if (adopt) {
					assertThat(transportBeans).containsExactly("mcpStdioTransports");
					assertThat(registry.list()).extracting(McpStdioServer::name)
						.containsExactlyInAnyOrder("demo", "other", "third");
					assertThat(registry.list()).allSatisfy((server) -> {
						assertThat(server.state()).isEqualTo(ServerState.RUNNING);
						assertThat(server.isInitialized()).isTrue();
					});
					assertThat(registry.get("demo").pid()).isEqualTo(demoPid);
				}
				else {
					assertThat(transportBeans).containsExactlyInAnyOrder("mcpStdioTransports", "stdioTransports");
					assertThat(registry.list()).isEmpty();
				}
				observed.add(new Observed(clients.stream().map((client) -> client.getClientInfo().name()).toList(),
						tools, Arrays.stream(callbacks).map((callback) -> callback.getToolDefinition().name()).toList(),
						echo));
			});
		assertThat(observed).hasSize(1);
		return observed.get(0);
	}

	@Test
	void nameInBothPlacesIsOneServerAndTheLogSaysWhichKeysWon(CapturedOutput output) {
		List<String> properties = new ArrayList<>(springAiServer("demo"));
		properties.add(CONNECTIONS + "demo.env.LOG_LEVEL=info");
		properties.add(CONNECTIONS + "demo.env.FROM_SPRING_AI=yes");
		properties.add("mcp.stdio.servers.demo.env.LOG_LEVEL=debug");
		properties.add("mcp.stdio.servers.demo.restart.policy=on-failure");
		properties.add("mcp.stdio.servers.demo.required=true");
		properties.add("mcp.stdio.defaults.shutdown.terminate-timeout=1s");
		AiTestSupport.runner().withPropertyValues(properties.toArray(String[]::new)).run((context) -> {
			assertThat(context).hasNotFailed();
			McpStdioServers servers = context.getBean(McpStdioServers.class);
			assertThat(servers.list()).hasSize(1);
			McpStdioServerDefinition definition = servers.get("demo").definition();
			assertThat(definition.spec().command()).isEqualTo(AiTestSupport.java());
			assertThat(definition.spec().args()).endsWith(TestMcpServer.class.getName());
			assertThat(definition.spec().env()).containsEntry("LOG_LEVEL", "debug")
				.containsEntry("FROM_SPRING_AI", "yes")
				.containsEntry(Fixtures.MARKER, this.fixtures.id());
			assertThat(definition.restart().mode()).isEqualTo(RestartPolicy.Mode.ON_FAILURE);
			assertThat(definition.required()).isTrue();
			assertThat(definition.spec().shutdown().terminate()).isEqualTo(Duration.ofSeconds(1));
			assertThat(clients(context)).hasSize(1);
			assertThat(this.fixtures.alive()).containsExactly(servers.get("demo").pid());
			assertThat(output).contains("Adopted MCP server 'demo' from spring.ai.mcp.client.stdio.connections.demo "
					+ "(command, args, env." + Fixtures.MARKER + ", env.FROM_SPRING_AI) together with "
					+ "mcp.stdio.servers.demo (env, required, restart.policy): one server, one process; "
					+ "mcp.stdio.servers.demo wins for env.LOG_LEVEL; Spring AI's stdio transport starts no process "
					+ "for it");
		});
	}

	@Test
	void serversOfSpringAisFileAreAdoptedWithPlaceholdersResolved(CapturedOutput output) throws IOException {
		Path file = Files.writeString(this.temp.resolve("mcp.json"), """
				{"mcpServers": {
				  "from-file": {"command": "${java.home}/bin/java",
				    "args": ["-cp", "${java.class.path}", "%s"], "env": {"%s": "${test.marker}"}},
				  "demo": {"command": "/no/such/command"}
				}}
				""".formatted(TestMcpServer.class.getName(), Fixtures.MARKER));
		AiTestSupport.runner()
			.withPropertyValues(AiTestSupport.properties(springAiServer("demo")))
			.withPropertyValues("spring.ai.mcp.client.stdio.servers-configuration=" + file,
					"test.marker=" + this.fixtures.id())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				McpStdioServers servers = context.getBean(McpStdioServers.class);
				assertThat(servers.list()).extracting(McpStdioServer::name)
					.containsExactlyInAnyOrder("from-file", "demo");
				assertThat(servers.get("from-file").definition().spec().command())
					.isEqualTo(System.getProperty("java.home") + "/bin/java");
				assertThat(clients(context)).hasSize(2);
				assertThat(client(clients(context), "from-file").listTools().tools()).hasSize(4);
				assertThat(this.fixtures.alive()).containsExactlyInAnyOrder(servers.get("from-file").pid(),
						servers.get("demo").pid());
				assertThat(output)
					.contains("MCP server 'demo' is configured both in " + file
							+ " mcpServers.demo and under spring.ai.mcp.client.stdio.connections.demo: the connection "
							+ "wins, as with Spring AI's own transport")
					.contains(
							"Adopted MCP server 'from-file' from " + file + " mcpServers.from-file: mcp-stdio runs it");
			});
	}

	@Test
	void unresolvedPlaceholderInASpringAiConnectionStopsStartUp() {
		List<String> properties = new ArrayList<>(springAiServer("demo"));
		properties.add(CONNECTIONS + "demo.env.MY_TOKEN=${MY_TOKEN_NOT_SET_MCP}");
		AiTestSupport.runner().withPropertyValues(properties.toArray(String[]::new)).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).isInstanceOf(McpStdioConfigurationException.class)
				.hasMessageContaining("server 'demo', property 'spring.ai.mcp.client.stdio.connections.demo.env."
						+ "MY_TOKEN': the placeholder ${MY_TOKEN_NOT_SET_MCP} cannot be resolved");
			assertThat(this.fixtures.alive()).isEmpty();
		});
	}

	@Test
	void connectionThatBindingWouldChangeOrMisreadStopsStartUp() {
		List<String> properties = new ArrayList<>(springAiServer("demo"));
		properties.add(CONNECTIONS + "demo.env[0]=x");
		properties.add(CONNECTIONS + "my demo.command=sh");
		AiTestSupport.runner().withPropertyValues(properties.toArray(String[]::new)).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).isInstanceOf(McpStdioConfigurationException.class)
				.hasMessageContaining("server 'demo', property 'spring.ai.mcp.client.stdio.connections.demo.env[0]': "
						+ "'env' is a map of names to values, written here as a list")
				.hasMessageContaining("server 'my demo', property 'spring.ai.mcp.client.stdio.connections.my demo."
						+ "command': the server's name 'my demo' holds characters a property name cannot, so binding "
						+ "would silently make it 'mydemo'");
			assertThat(this.fixtures.alive()).isEmpty();
		});
	}

	@Test
	void missingCommandNamesSpringAisProperty() {
		AiTestSupport.runner()
			.withPropertyValues(CONNECTIONS + "demo.args=x", "mcp.stdio.servers.demo.required=true")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).hasMessageContaining(
						"property 'spring.ai.mcp.client.stdio.connections.demo.command': " + "no command is set");
			});
	}

	@Test
	void notAdoptedWhenSpringAisClientIsDisabled() {
		AiTestSupport.runner()
			.withPropertyValues(AiTestSupport.properties(springAiServer("demo")))
			.withPropertyValues("spring.ai.mcp.client.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(McpStdioServers.class).list()).isEmpty();
				assertThat(this.fixtures.alive()).isEmpty();
			});
	}

	@Test
	void notAdoptedWhenMcpStdioIsDisabled() {
		AiTestSupport.runner()
			.withPropertyValues(AiTestSupport.properties(springAiServer("demo")))
			.withPropertyValues("mcp.stdio.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(McpStdioServers.class).hasBean("stdioTransports");
				// Spring AI's own transport runs it
				assertThat(client(clients(context), "demo").listTools().tools()).hasSize(4);
				assertThat(this.fixtures.alive()).hasSize(1);
			});
	}

	private List<String> springAiServer(String name) {
		String prefix = CONNECTIONS + name + ".";
		List<String> properties = new ArrayList<>(AiTestSupport.testServerCommand(prefix));
		properties.add(prefix + "env." + Fixtures.MARKER + "=" + this.fixtures.id());
		return properties;
	}

	@SuppressWarnings("unchecked")
	private static List<McpSyncClient> clients(AssertableApplicationContext context) {
		return context.getBean("mcpSyncClients", List.class);
	}

	private static McpSyncClient client(List<McpSyncClient> clients, String server) {
		return clients.stream()
			.filter((client) -> client.getClientInfo().name().endsWith(" - " + server))
			.findFirst()
			.orElseThrow();
	}

	/**
	 * What Spring AI's clients see.
	 *
	 * @param clients the names of the clients, in Spring AI's order
	 * @param tools every client's tools: name, description and input schema
	 * @param callbacks the names of the tool callbacks, in order
	 * @param echo the answer of a tool call
	 */
	record Observed(List<String> clients, List<List<Object>> tools, List<String> callbacks, String echo) {
	}

}

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

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.test.Sandboxes;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.ai.tool.ToolCallbackProvider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Real Spring AI clients over {@link McpStdioClientTransport} against the official
 * {@code @modelcontextprotocol/server-everything}, installed by {@code .ci/run} (or
 * pointed at with the system property {@value AiTestSupport#EVERYTHING_PROPERTY}).
 * Without node or the package they are skipped, saying why, unless the environment
 * variable {@value #REQUIRED} is {@code true} ({@code .ci/run} sets it): then they fail.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class ServerEverythingTests {

	/** Set to {@code true} where these tests must run: CI. */
	static final String REQUIRED = "MCP_STDIO_REQUIRE_SERVER_EVERYTHING";

	private final Fixtures fixtures;

	private String node;

	private Path everything;

	ServerEverythingTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@BeforeEach
	void findServerEverything() {
		this.node = AiTestSupport.node();
		require(this.node != null, "node is not on the PATH: server-everything cannot run");
		this.everything = AiTestSupport.serverEverything();
		require(this.everything != null,
				"@modelcontextprotocol/server-everything is not installed: run .ci/run, or npm install --prefix "
						+ ".ci/node @modelcontextprotocol/server-everything, or set -D"
						+ AiTestSupport.EVERYTHING_PROPERTY + "=<path to dist/index.js>");
	}

	/** Skip when the condition does not hold, or fail where these tests must run. */
	private static void require(boolean condition, String why) {
		if (Boolean.parseBoolean(System.getenv(REQUIRED))) {
			assertThat(condition).as(why + " (" + REQUIRED + "=true: these tests must not be skipped)").isTrue();
		}
		assumeTrue(condition, why);
	}

	private List<String> serverEverything(String... more) {
		List<String> properties = new java.util.ArrayList<>(List.of("mcp.stdio.servers.everything.command=" + this.node,
				"mcp.stdio.servers.everything.args[0]=" + this.everything, "mcp.stdio.servers.everything.args[1]=stdio",
				"mcp.stdio.servers.everything.env.MCP_STDIO_TEST=" + this.fixtures.id(),
				"mcp.stdio.servers.everything.shutdown.stdin-close-timeout=1s",
				"mcp.stdio.servers.everything.shutdown.terminate-timeout=1s"));
		properties.addAll(List.of(more));
		return properties;
	}

	@Test
	void syncClientListsAndCallsTools() {
		AiTestSupport.runner().withPropertyValues(serverEverything().toArray(String[]::new)).run((context) -> {
			assertThat(context).hasNotFailed();
			McpSyncClient client = AiTestSupport.syncClient(context);
			assertThat(client.getServerInfo().name()).containsIgnoringCase("everything");
			assertThat(client.listTools().tools()).extracting((tool) -> tool.name()).contains("echo", "get-sum");
			CallToolResult echo = client
				.callTool(CallToolRequest.builder("echo").arguments(Map.of("message", "hi everything")).build());
			assertThat(AiTestSupport.text(echo)).contains("hi everything");
			CallToolResult sum = client
				.callTool(CallToolRequest.builder("get-sum").arguments(Map.of("a", 2, "b", 40)).build());
			assertThat(AiTestSupport.text(sum)).contains("42");
			ToolCallbackProvider provider = context.getBean("mcpToolCallbacks", ToolCallbackProvider.class);
			assertThat(provider.getToolCallbacks()).extracting((callback) -> callback.getToolDefinition().name())
				.contains("echo", "get_sum");
		});
	}

	@Test
	void aSandboxedServerListsAndCallsToolsWithoutNetwork() {
		Sandboxes.assume();
		// the package and its dependencies: the node_modules tree it was installed in
		Path installed = this.everything;
		while (installed.getFileName() != null && !installed.getFileName().toString().equals("node_modules")) {
			installed = installed.getParent();
		}
		assertThat(installed.getFileName()).as("the node_modules of %s", this.everything).isNotNull();
		AiTestSupport.runner()
			.withPropertyValues(serverEverything("mcp.stdio.servers.everything.sandbox.enabled=true",
					"mcp.stdio.servers.everything.sandbox.network=none",
					"mcp.stdio.servers.everything.sandbox.read-only[0]=" + installed)
				.toArray(String[]::new))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				McpStdioServer server = context.getBean(McpStdioServers.class).get("everything");
				assertThat(server.definition().spec().sandbox().enabled()).isTrue();
				McpSyncClient client = AiTestSupport.syncClient(context);
				assertThat(client.listTools().tools()).extracting((tool) -> tool.name()).contains("echo", "get-sum");
				CallToolResult sum = client
					.callTool(CallToolRequest.builder("get-sum").arguments(Map.of("a", 2, "b", 40)).build());
				assertThat(AiTestSupport.text(sum)).contains("42");
				CallToolResult echo = client
					.callTool(CallToolRequest.builder("echo").arguments(Map.of("message", "from the sandbox")).build());
				assertThat(AiTestSupport.text(echo)).contains("from the sandbox");
			});
	}

	@Test
	void asyncClientCallsTools() {
		AiTestSupport.runner()
			.withPropertyValues(serverEverything("spring.ai.mcp.client.type=ASYNC").toArray(String[]::new))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				@SuppressWarnings("unchecked")
				List<McpAsyncClient> clients = context.getBean("mcpAsyncClients", List.class);
				CallToolResult sum = clients.get(0)
					.callTool(CallToolRequest.builder("get-sum").arguments(Map.of("a", 1, "b", 2)).build())
					.block(Duration.ofSeconds(10));
				assertThat(AiTestSupport.text(sum)).contains("3");
			});
	}

	@Test
	void killedServerFailsTheNextToolCallAtOnceNamingTheExit() {
		// A call that waited for the request timeout would show
		AiTestSupport.runner()
			.withPropertyValues(serverEverything("spring.ai.mcp.client.request-timeout=60s").toArray(String[]::new))
			.run((context) -> {
				McpSyncClient client = AiTestSupport.syncClient(context);
				McpStdioServer server = context.getBean(McpStdioServers.class).get("everything");
				AiTestSupport.kill(server.pid());
				Await.within(Duration.ofSeconds(5))
					.until("the exit observed", () -> server.state() == ServerState.FAILED);
				long begin = System.nanoTime();
				assertThatThrownBy(() -> client.callTool(CallToolRequest.builder("echo").build()))
					.hasMessageContaining("MCP server 'everything' process exited unexpectedly with exit code 137");
				assertThat(Duration.ofNanos(System.nanoTime() - begin)).isLessThan(Duration.ofSeconds(5));
			});
	}

}

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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;

import static dev.mcpstdio.ai.AiTestSupport.properties;
import static dev.mcpstdio.ai.AiTestSupport.syncClient;
import static dev.mcpstdio.ai.AiTestSupport.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A server restarted under a real Spring AI client: the app's tool callbacks follow the
 * tools of the new process, and a call made while the server restarts goes to the new
 * process, or fails naming the last exit when the policy gives up.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(OutputCaptureExtension.class)
@ExtendWith(NoProcessLeft.class)
class SpringAiRestartTests {

	private final Fixtures fixtures;

	@TempDir
	Path temp;

	SpringAiRestartTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void toolCallbacksFollowTheToolsOfTheProcessRestartedByThePolicy(CapturedOutput output) {
		Path starts = this.temp.resolve("starts");
		AiTestSupport.runner()
			.withPropertyValues(
					properties(AiTestSupport.testServer("demo", this.fixtures.id(), "--starts", starts.toString()),
							List.of("mcp.stdio.servers.demo.restart.policy=on-failure",
									"mcp.stdio.servers.demo.restart.initial-backoff=100ms")))
			.run((context) -> {
				ToolCallbackProvider provider = context.getBean("mcpToolCallbacks", ToolCallbackProvider.class);
				assertThat(toolNames(provider)).contains("generation_1");
				McpStdioServer server = context.getBean(McpStdioServers.class).get("demo");
				AiTestSupport.kill(server.pid());
				// nothing is rebuilt or called: the session resumes on the new process
				// and
				// Spring AI refreshes its tool callbacks on
				// notifications/tools/list_changed
				Await.within(Duration.ofSeconds(20))
					.until("the new process's tools", () -> toolNames(provider).contains("generation_2"));
				assertThat(toolNames(provider)).doesNotContain("generation_1")
					.containsExactlyInAnyOrder("echo", "pid", "children", "slow", "generation_2");
				assertThat(text(syncClient(context).callTool(CallToolRequest.builder("pid").build())))
					.isEqualTo(String.valueOf(server.pid()));
			});
		assertThat(output).contains("replayed initialize; told the client that its tools may have changed");
	}

	@Test
	void toolCallbacksFollowTheToolsOfTheProcessRestartedByAnOperator() {
		Path starts = this.temp.resolve("starts");
		AiTestSupport.runner()
			.withPropertyValues(AiTestSupport.testServer("demo", this.fixtures.id(), "--starts", starts.toString())
				.toArray(String[]::new))
			.run((context) -> {
				ToolCallbackProvider provider = context.getBean("mcpToolCallbacks", ToolCallbackProvider.class);
				assertThat(toolNames(provider)).contains("generation_1");
				// what POST /actuator/mcpservers/demo {"action": "restart"} does
				context.getBean(McpStdioServers.class).get("demo").restartServer();
				Await.within(Duration.ofSeconds(20))
					.until("the new process's tools", () -> toolNames(provider).contains("generation_2"));
				assertThat(toolNames(provider)).doesNotContain("generation_1");
			});
	}

	@Test
	void callWhileRestartingWaitsForTheNewProcess() throws IOException {
		Path starts = this.temp.resolve("starts");
		AiTestSupport.runner()
			.withPropertyValues(
					properties(AiTestSupport.testServer("demo", this.fixtures.id(), "--starts", starts.toString()),
							List.of("mcp.stdio.servers.demo.restart.policy=on-failure",
									"mcp.stdio.servers.demo.restart.initial-backoff=2s")))
			.run((context) -> {
				McpSyncClient client = syncClient(context);
				McpStdioServer server = context.getBean(McpStdioServers.class).get("demo");
				StdioServerProcess first = server.process();
				AiTestSupport.kill(server.pid());
				Await.within(Duration.ofSeconds(5)).until("RESTARTING", () -> server.state() == ServerState.RESTARTING);
				// made during the backoff: it waits for the new process instead of
				// failing
				// with the exit of the old one
				String echoed = text(client
					.callTool(CallToolRequest.builder("echo").arguments(Map.of("text", "after the restart")).build()));
				assertThat(echoed).isEqualTo("after the restart");
				assertThat(server.clientConnection().generation()).isEqualTo(2);
				assertThat(server.process()).isNotSameAs(first);
			});
		assertThat(Files.readAllLines(starts, StandardCharsets.UTF_8)).hasSize(2);
	}

	@Test
	void callWhileRestartingFailsNamingTheLastExitWhenThePolicyGivesUp() throws IOException {
		Path starts = this.temp.resolve("starts");
		AiTestSupport.runner()
			.withPropertyValues(properties(
					AiTestSupport.testServer("demo", this.fixtures.id(), "--starts", starts.toString(), "--exit-after",
							"1", "4", "--stderr", "boom: gone"),
					List.of("mcp.stdio.servers.demo.restart.policy=on-failure",
							"mcp.stdio.servers.demo.restart.max-restarts=1",
							"mcp.stdio.servers.demo.restart.initial-backoff=1s")))
			.run((context) -> {
				McpSyncClient client = syncClient(context);
				McpStdioServer server = context.getBean(McpStdioServers.class).get("demo");
				AiTestSupport.kill(server.pid());
				Await.within(Duration.ofSeconds(5)).until("RESTARTING", () -> server.state() == ServerState.RESTARTING);
				long begin = System.nanoTime();
				assertThatThrownBy(() -> client.callTool(CallToolRequest.builder("pid").build()))
					.hasStackTraceContaining("MCP server 'demo' process exited unexpectedly with exit code 4; "
							+ "stderr: boom: gone (start 2)");
				// the backoff, the second start and its exit: far below the request
				// timeout
				assertThat(Duration.ofNanos(System.nanoTime() - begin)).isLessThan(Duration.ofSeconds(15));
				Await.within(Duration.ofSeconds(5)).until("FAILED", () -> server.state() == ServerState.FAILED);
				// once the policy gave up, a call fails at once
				long failedAt = System.nanoTime();
				assertThatThrownBy(() -> client.callTool(CallToolRequest.builder("pid").build()))
					.hasStackTraceContaining("exit code 4");
				assertThat(Duration.ofNanos(System.nanoTime() - failedAt)).isLessThan(Duration.ofSeconds(1));
			});
		assertThat(Files.readAllLines(starts, StandardCharsets.UTF_8)).hasSize(2);
	}

	static List<String> toolNames(ToolCallbackProvider provider) {
		return Arrays.stream(provider.getToolCallbacks())
			.map((callback) -> callback.getToolDefinition().name())
			.toList();
	}

	static McpSyncClient client(ApplicationContext context) {
		return syncClient(context);
	}

}

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

import dev.mcpstdio.actuate.McpServersEndpoint;
import dev.mcpstdio.McpServerStartupException;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.ai.mcp.client.common.autoconfigure.properties.McpClientCommonProperties;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static dev.mcpstdio.ai.AiTestSupport.properties;
import static dev.mcpstdio.ai.AiTestSupport.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Start-up with a server that cannot start, through real Spring AI clients: a server that
 * is not required is FAILED, its client stays and fails every call naming why, and its
 * tools are left out; a required one fails start-up with
 * {@link McpServerStartupException}; every server is started once.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(OutputCaptureExtension.class)
@ExtendWith(NoProcessLeft.class)
class SpringAiStartupTests {

	private final Fixtures fixtures;

	@TempDir
	Path temp;

	SpringAiStartupTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void brokenServerIsFailedWithOneWarnItsClientSaysWhyAndTheOthersServe(CapturedOutput output) throws IOException {
		Path starts = this.temp.resolve("starts");
		AiTestSupport.runnerWithEndpoint()
			.withPropertyValues(properties(
					AiTestSupport.testServer("broken", this.fixtures.id(), "--starts", starts.toString(), "--exit-now",
							"3", "--stderr", "boom: token=abc123secret rejected"),
					AiTestSupport.testServer("good", this.fixtures.id())))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				List<McpSyncClient> clients = AiTestSupport.syncClients(context);
				assertThat(clients).extracting((client) -> client.getClientInfo().title())
					.containsExactly("broken", "good");
				McpSyncClient broken = clients.get(0);
				assertThat(broken.isInitialized()).isFalse();
				// its client exists and says why, at once, on every call
				for (Runnable call : List.<Runnable>of(broken::listTools, broken::initialize, broken::ping,
						() -> broken.callTool(CallToolRequest.builder("echo").build()))) {
					long begin = System.nanoTime();
					assertThatThrownBy(call::run).satisfies((thrown) -> assertThat(AiTestSupport.messages(thrown))
						.contains("MCP server 'broken' process exited unexpectedly with exit code 3; stderr: "
								+ "boom: token=****** rejected")
						.doesNotContain("abc123secret"));
					assertThat(Duration.ofNanos(System.nanoTime() - begin)).isLessThan(Duration.ofSeconds(1));
				}
				ToolCallback[] callbacks = context.getBean("mcpToolCallbacks", ToolCallbackProvider.class)
					.getToolCallbacks();
				assertThat(callbacks).extracting((callback) -> callback.getToolDefinition().name())
					.containsExactlyInAnyOrder("echo", "pid", "children", "slow");
				assertThat(Arrays.stream(callbacks)
					.filter((callback) -> callback.getToolDefinition().name().equals("echo"))
					.findFirst()
					.orElseThrow()
					.call("{\"text\":\"still served\"}")).contains("still served");
				McpStdioServers servers = context.getBean(McpStdioServers.class);
				assertThat(servers.get("broken").state()).isEqualTo(ServerState.FAILED);
				assertThat(servers.get("broken").lastExit().exitCode()).isEqualTo(3);
				assertThat(context.getBean(McpServersEndpoint.class).server("broken").state())
					.isEqualTo(ServerState.FAILED);
				HealthIndicator health = context.getBean("mcpServersHealthIndicator", HealthIndicator.class);
				// not required: it shows FAILED, but does not take the instance out
				assertThat(health.health().getStatus()).isEqualTo(Status.UP);
				assertThat(health.health().getDetails()).containsEntry("broken", "FAILED")
					.containsEntry("good", "RUNNING");
				// the user's setting is Spring AI's again once the clients exist
				assertThat(context.getBean(McpClientCommonProperties.class).isInitialized()).isTrue();
			});
		String warn = "MCP server 'broken' could not start and is FAILED (it is not required, so the application "
				+ "goes on; its tools are left out of Spring AI's tool callbacks until it runs again): MCP server "
				+ "'broken' process exited unexpectedly with exit code 3; stderr: boom: token=****** rejected";
		assertThat(output.getOut()).contains(warn).doesNotContain("abc123secret");
		// one WARN for its absence: the gathering of tools does not say it again
		assertThat(AiTestSupport.count(output.getOut(), "tools are left out of Spring AI's tool callbacks")).isOne();
		// started once: one pid, one line each
		assertThat(Files.readAllLines(starts, StandardCharsets.UTF_8)).hasSize(1);
		assertThat(AiTestSupport.count(output.getOut(), "Started MCP server 'broken'")).isOne();
		assertThat(AiTestSupport.count(output.getOut(),
				"MCP server 'broken' process exited unexpectedly with exit code 3; stderr: "
						+ "boom: token=****** rejected (pid "))
			.isOne();
	}

	@Test
	void asyncClientsLeaveTheBrokenServersToolsOutToo(CapturedOutput output) {
		AiTestSupport.runnerWithEndpoint()
			.withPropertyValues(properties(AiTestSupport.testServer("broken", this.fixtures.id(), "--exit-now", "3"),
					AiTestSupport.testServer("good", this.fixtures.id()), List.of("spring.ai.mcp.client.type=ASYNC")))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				@SuppressWarnings("unchecked")
				List<McpAsyncClient> clients = context.getBean("mcpAsyncClients", List.class);
				assertThat(clients).extracting((client) -> client.getClientInfo().name())
					.containsExactly("spring-ai-mcp-client - broken", "spring-ai-mcp-client - good");
				assertThat(clients.get(0).isInitialized()).isFalse();
				assertThat(clients.get(1).isInitialized()).isTrue();
				assertThatThrownBy(() -> clients.get(0).listTools().block())
					.satisfies((thrown) -> assertThat(AiTestSupport.messages(thrown))
						.contains("MCP server 'broken' process exited unexpectedly with exit code 3"));
				assertThat(context.getBean("mcpAsyncToolCallbacks", ToolCallbackProvider.class).getToolCallbacks())
					.hasSize(4);
			});
		assertThat(output.getOut()).contains("MCP server 'broken' could not start and is FAILED");
	}

	@Test
	void serverRestartedByItsPolicyAtStartUpIsKept() throws IOException {
		Path starts = this.temp.resolve("starts");
		AiTestSupport.runnerWithEndpoint()
			.withPropertyValues(properties(
					AiTestSupport.testServer("flaky", this.fixtures.id(), "--starts", starts.toString(), "--exit-first",
							"1", "3"),
					List.of("mcp.stdio.servers.flaky.restart.policy=on-failure",
							"mcp.stdio.servers.flaky.restart.initial-backoff=200ms")))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				McpSyncClient client = AiTestSupport.syncClients(context).get(0);
				assertThat(client.isInitialized()).isTrue();
				assertThat(client.listTools().tools()).extracting((tool) -> tool.name()).contains("generation_2");
				McpStdioServer server = context.getBean(McpStdioServers.class).get("flaky");
				assertThat(server.state()).isEqualTo(ServerState.RUNNING);
				assertThat(server.restarts()).isOne();
			});
		assertThat(Files.readAllLines(starts, StandardCharsets.UTF_8)).hasSize(2);
	}

	@Test
	void notInitializedAtStartUpTheClientFailsAtOnceUntilARestartSucceeds(CapturedOutput output) throws IOException {
		Path starts = this.temp.resolve("starts");
		AiTestSupport.runnerWithEndpoint()
			.withPropertyValues(properties(AiTestSupport.testServer("broken", this.fixtures.id(), "--starts",
					starts.toString(), "--exit-first", "1", "3"), List.of("spring.ai.mcp.client.initialized=false")))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				McpStdioServer server = context.getBean(McpStdioServers.class).get("broken");
				Await.within(Duration.ofSeconds(10)).until("broken FAILED", () -> server.state() == ServerState.FAILED);
				McpSyncClient client = AiTestSupport.syncClients(context).get(0);
				long begin = System.nanoTime();
				// no answer in its place: every call says why, at once
				assertThatThrownBy(client::listTools).satisfies((thrown) -> assertThat(AiTestSupport.messages(thrown))
					.contains("MCP server 'broken' process exited unexpectedly with exit code 3"));
				assertThatThrownBy(() -> client.callTool(CallToolRequest.builder("pid").build()))
					.satisfies((thrown) -> assertThat(AiTestSupport.messages(thrown))
						.contains("MCP server 'broken' process exited unexpectedly with exit code 3"));
				assertThat(Duration.ofNanos(System.nanoTime() - begin)).isLessThan(Duration.ofSeconds(2));
				// and the tool callbacks leave it out
				assertThat(context.getBean("mcpToolCallbacks", ToolCallbackProvider.class).getToolCallbacks())
					.isEmpty();
				// the failed call started nothing
				assertThat(Files.readAllLines(starts, StandardCharsets.UTF_8)).hasSize(1);
				server.restartServer();
				assertThat(client.listTools().tools()).extracting((tool) -> tool.name()).contains("generation_2");
				assertThat(text(client.callTool(CallToolRequest.builder("pid").build())))
					.isEqualTo(String.valueOf(server.pid()));
			});
		assertThat(Files.readAllLines(starts, StandardCharsets.UTF_8)).hasSize(2);
		assertThat(output.getOut()).doesNotContain("could not start and is FAILED");
	}

	@Test
	void requiredServerFailsStartUpWithTheHint() {
		assertThat(System.getenv(AiTestSupport.TOKEN_VARIABLE)).as("set by the surefire configuration").isNotNull();
		AiTestSupport.runnerWithEndpoint()
			.withPropertyValues(properties(
					AiTestSupport.testServer("needy", this.fixtures.id(), "--require-env",
							AiTestSupport.TOKEN_VARIABLE),
					AiTestSupport.testServer("good", this.fixtures.id()),
					List.of("mcp.stdio.servers.needy.required=true")))
			.run((context) -> {
				assertThat(context).hasFailed();
				McpServerStartupException startup = AiTestSupport.findCause(context.getStartupFailure(),
						McpServerStartupException.class);
				assertThat(startup.serverName()).isEqualTo("needy");
				assertThat(startup.getMessage()).isEqualTo(AiTestSupport.requiredNeedyMessage());
				assertThat(startup.getMessage()).doesNotContain(System.getenv(AiTestSupport.TOKEN_VARIABLE));
			});
	}

	@Test
	void requiredServerFailsStartUpAlsoWhenNotInitializedAtStartUp() {
		AiTestSupport.runnerWithEndpoint()
			.withPropertyValues(properties(
					AiTestSupport.testServer("needy", this.fixtures.id(), "--require-env",
							AiTestSupport.TOKEN_VARIABLE),
					List.of("mcp.stdio.servers.needy.required=true", "spring.ai.mcp.client.initialized=false")))
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(AiTestSupport.findCause(context.getStartupFailure(), McpServerStartupException.class)
					.getMessage()).isEqualTo(AiTestSupport.requiredNeedyMessage());
			});
	}

	@Test
	void requiredServerThatRunsIsInitializedAtStartUpAlsoWhenNotInitializedAtStartUp() {
		AiTestSupport.runnerWithEndpoint()
			.withPropertyValues(properties(AiTestSupport.testServer("demo", this.fixtures.id()),
					AiTestSupport.testServer("lazy", this.fixtures.id()),
					List.of("mcp.stdio.servers.demo.required=true", "spring.ai.mcp.client.initialized=false")))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				McpStdioServers servers = context.getBean(McpStdioServers.class);
				assertThat(servers.get("demo").isInitialized()).isTrue();
				assertThat(servers.get("lazy").isInitialized()).isFalse();
			});
	}

}

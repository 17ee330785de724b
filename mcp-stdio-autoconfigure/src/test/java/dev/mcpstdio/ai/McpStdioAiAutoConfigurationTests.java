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
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.McpServerStartupException;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.ai.mcp.client.common.autoconfigure.NamedClientMcpTransport;
import org.springframework.ai.mcp.customizer.McpClientCustomizer;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.ResolvableType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Real Spring AI clients over {@link McpStdioClientTransport}, against the bundled test
 * server.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(OutputCaptureExtension.class)
@ExtendWith(NoProcessLeft.class)
class McpStdioAiAutoConfigurationTests {

	private final Fixtures fixtures;

	McpStdioAiAutoConfigurationTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void syncClientsListAndCallToolsThroughToolCallbacks() {
		AiTestSupport.runner()
			.withPropertyValues(AiTestSupport.properties(AiTestSupport.testServer("demo", this.fixtures.id()),
					AiTestSupport.testServer("other", this.fixtures.id())))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				String[] names = context.getBeanNamesForType(
						ResolvableType.forClassWithGenerics(List.class, NamedClientMcpTransport.class));
				// Spring AI's own stdio transports are removed: mcp-stdio adopts its
				// servers
				assertThat(names).containsExactly("mcpStdioTransports");
				List<?> transports = context.getBean("mcpStdioTransports", List.class);
				assertThat(transports).extracting((t) -> ((NamedClientMcpTransport) t).name())
					.containsExactly("demo", "other");
				McpStdioServers servers = context.getBean(McpStdioServers.class);
				assertThat(servers.get("demo").isInitialized()).isTrue();
				assertThat(servers.get("other").isInitialized()).isTrue();
				@SuppressWarnings("unchecked")
				List<McpSyncClient> clients = context.getBean("mcpSyncClients", List.class);
				assertThat(clients).hasSize(2);
				assertThat(clients.get(0).listTools().tools()).extracting((tool) -> tool.name())
					.containsExactlyInAnyOrder("echo", "pid", "children", "slow");
				ToolCallbackProvider provider = context.getBean("mcpToolCallbacks", ToolCallbackProvider.class);
				ToolCallback[] callbacks = provider.getToolCallbacks();
				// both servers have the same tools: Spring AI prefixes the second set
				assertThat(callbacks).hasSize(8);
				ToolCallback echo = Arrays.stream(callbacks)
					.filter((callback) -> callback.getToolDefinition().name().equals("echo"))
					.findFirst()
					.orElseThrow();
				assertThat(echo.call("{\"text\":\"hello over stdio\"}")).contains("hello over stdio");
				// a tool with child processes: they belong to the server and end with it
				String children = AiTestSupport.text(clients.get(0)
					.callTool(CallToolRequest.builder("children").arguments(Map.of("count", 2)).build()));
				assertThat(children).matches("\\[\\d+, \\d+\\]");
				assertThat(servers.get("demo").treeStats().liveProcesses()).isEqualTo(3);
			});
	}

	@Test
	void asyncClientsListAndCallTools() {
		AiTestSupport.runner()
			.withPropertyValues(AiTestSupport.properties(AiTestSupport.testServer("demo", this.fixtures.id()),
					List.of("spring.ai.mcp.client.type=ASYNC")))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				@SuppressWarnings("unchecked")
				List<McpAsyncClient> clients = context.getBean("mcpAsyncClients", List.class);
				assertThat(clients).hasSize(1);
				McpAsyncClient client = clients.get(0);
				assertThat(client.listTools().block(Duration.ofSeconds(10)).tools()).hasSize(4);
				CallToolResult result = client
					.callTool(CallToolRequest.builder("echo").arguments(Map.of("text", "async hello")).build())
					.block(Duration.ofSeconds(10));
				assertThat(AiTestSupport.text(result)).isEqualTo("async hello");
				ToolCallbackProvider provider = context.getBean("mcpAsyncToolCallbacks", ToolCallbackProvider.class);
				assertThat(provider.getToolCallbacks()).hasSize(4);
			});
	}

	@Test
	void killedServerFailsTheNextToolCallAtOnceNamingTheExit() {
		// A call that waited for the request timeout would show
		AiTestSupport.runner()
			.withPropertyValues(AiTestSupport.properties(AiTestSupport.testServer("demo", this.fixtures.id()),
					List.of("spring.ai.mcp.client.request-timeout=60s")))
			.run((context) -> {
				McpSyncClient client = AiTestSupport.syncClient(context);
				long pid = Long.parseLong(AiTestSupport.text(client.callTool(CallToolRequest.builder("pid").build())));
				AiTestSupport.kill(pid);
				McpStdioServer server = context.getBean(McpStdioServers.class).get("demo");
				Await.within(Duration.ofSeconds(5))
					.until("the exit observed", () -> server.state() == ServerState.FAILED);
				long begin = System.nanoTime();
				assertThatThrownBy(() -> client.callTool(CallToolRequest.builder("echo").build())).hasMessageContaining(
						"MCP server 'demo' process exited unexpectedly with exit code 137 " + "(signal 9, SIGKILL)");
				assertThat(Duration.ofNanos(System.nanoTime() - begin)).isLessThan(Duration.ofSeconds(5));
			});
	}

	@Test
	void requestPendingWhenTheServerDiesFailsNamingTheExit() {
		AiTestSupport.runner()
			.withPropertyValues(AiTestSupport.properties(AiTestSupport.testServer("demo", this.fixtures.id())))
			.run((context) -> {
				McpSyncClient client = AiTestSupport.syncClient(context);
				long pid = Long.parseLong(AiTestSupport.text(client.callTool(CallToolRequest.builder("pid").build())));
				CompletableFuture<CallToolResult> slow = CompletableFuture.supplyAsync(() -> client
					.callTool(CallToolRequest.builder("slow").arguments(Map.of("millis", 60000)).build()));
				McpStdioServer server = context.getBean(McpStdioServers.class).get("demo");
				Await.within(Duration.ofSeconds(5)).until("the slow request sent", () -> server.pendingRequests() == 1);
				AiTestSupport.kill(pid);
				// far below the 20 s request timeout: the exit answers it
				assertThatThrownBy(() -> slow.get(5, TimeUnit.SECONDS))
					.hasMessageContaining("MCP server 'demo' process exited unexpectedly with exit code 137");
			});
	}

	@Test
	void jsonRpcErrorOfAnExitQuotesStderrSanitized() {
		AiTestSupport.runner()
			.withPropertyValues(AiTestSupport.properties(AiTestSupport.testServer("demo", this.fixtures.id())))
			.run((context) -> {
				McpSyncClient client = AiTestSupport.syncClient(context);
				CallToolRequest crash = CallToolRequest.builder("crash")
					.arguments(Map.of("stderr", "boom: token=abc123secret"))
					.build();
				Throwable thrown = catchThrowable(() -> client.callTool(crash));
				McpError error = AiTestSupport.findCause(thrown, McpError.class);
				assertThat(error.getMessage()).isEqualTo(
						"MCP server 'demo' process exited unexpectedly with exit code 3; stderr: boom: token=******");
				assertThat(String.valueOf(error.getJsonRpcError().data())).contains("boom: token=******")
					.doesNotContain("abc123secret");
			});
	}

	@Test
	void aRequestSpringAiGaveUpOnDoesNotHoldTheDrainOfAStop() {
		AiTestSupport.runner()
			.withPropertyValues(AiTestSupport.properties(AiTestSupport.testServer("demo", this.fixtures.id()),
					List.of("spring.ai.mcp.client.request-timeout=1s",
							"mcp.stdio.servers.demo.shutdown.drain-timeout=2m",
							// initialized below, not at start-up: on a loaded machine the
							// server's JVM may answer its first initialize after 1 s
							"spring.ai.mcp.client.initialized=false")))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				@SuppressWarnings("unchecked")
				List<McpSyncClient> clients = context.getBean("mcpSyncClients", List.class);
				Await.within(Duration.ofSeconds(30)).until("the client initialized", () -> {
					try {
						clients.get(0).initialize();
						return true;
					}
					catch (RuntimeException ex) {
						return false;
					}
				});
				// answered only after 5 minutes: Spring AI's client gives up after 1s
				Throwable gaveUp = catchThrowable(() -> clients.get(0)
					.callTool(CallToolRequest.builder("slow").arguments(Map.of("millis", 300_000)).build()));
				assertThat(gaveUp).as("the call timed out on the client's side").isNotNull();
				McpStdioServer server = context.getBean(McpStdioServers.class).get("demo");
				long begin = System.nanoTime();
				server.stopServer();
				Duration took = Duration.ofNanos(System.nanoTime() - begin);
				// the drain did not wait for the abandoned request: its 2 minutes would
				// show
				assertThat(took).isLessThan(Duration.ofSeconds(60));
				assertThat(server.state()).isEqualTo(ServerState.STOPPED);
			});
	}

	@Test
	void requiredServerThatExitsAtOnceFailsStartUp() {
		AiTestSupport.runner()
			.withPropertyValues(
					AiTestSupport.properties(AiTestSupport.testServer("demo", this.fixtures.id(), "--exit-now", "3"),
							List.of("mcp.stdio.servers.demo.required=true")))
			.run((context) -> {
				assertThat(context).hasFailed();
				// the exit ended the initialization, not Spring AI's 20 s timeout: told
				// by
				// the reason, which does not depend on the machine's speed (a timeout
				// reads
				// "Spring AI's MCP client could not initialize it: Did not observe ...")
				assertThat(AiTestSupport.findCause(context.getStartupFailure(), McpServerStartupException.class))
					.hasMessageStartingWith("MCP server 'demo' is required but could not start: MCP server 'demo' "
							+ "process exited unexpectedly with exit code 3")
					.hasMessageContaining("boom: missing dependency");
			});
	}

	@Test
	void serverThatExitsAtOnceIsFailedWhenNotInitializedAtStartUp() {
		AiTestSupport.runner()
			.withPropertyValues(
					AiTestSupport.properties(AiTestSupport.testServer("demo", this.fixtures.id(), "--exit-now", "3"),
							AiTestSupport.testServer("good", this.fixtures.id()),
							List.of("spring.ai.mcp.client.initialized=false")))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				McpStdioServers servers = context.getBean(McpStdioServers.class);
				Await.within(Duration.ofSeconds(10))
					.until("demo FAILED", () -> servers.get("demo").state() == ServerState.FAILED);
				assertThat(servers.get("demo").lastExit().exitCode()).isEqualTo(3);
				assertThat(servers.get("good").state()).isEqualTo(ServerState.RUNNING);
				assertThat(servers.get("good").isInitialized()).isFalse();
				@SuppressWarnings("unchecked")
				List<McpSyncClient> clients = context.getBean("mcpSyncClients", List.class);
				McpSyncClient good = clients.stream()
					.filter((client) -> client.getClientInfo().name().endsWith("good"))
					.findFirst()
					.orElseThrow();
				assertThat(good.listTools().tools()).hasSize(4);
				assertThat(servers.get("good").isInitialized()).isTrue();
			});
	}

	@Test
	void reconnectAfterFailedInitializeReusesTheProcess() {
		AiTestSupport.runner()
			.withUserConfiguration(ShortInitializationTimeout.class)
			.withPropertyValues("mcp.stdio.servers.mute.command=sh", "mcp.stdio.servers.mute.args[0]=-c",
					"mcp.stdio.servers.mute.args[1]=while read line; do :; done",
					"mcp.stdio.servers.mute.env.MCP_STDIO_TEST=" + this.fixtures.id(),
					"spring.ai.mcp.client.initialized=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				McpSyncClient client = AiTestSupport.syncClient(context);
				McpStdioServer server = context.getBean(McpStdioServers.class).get("mute");
				for (int attempt = 0; attempt < 3; attempt++) {
					// the mute server never answers: the client's 500 ms initialization
					// timeout ends each attempt, and the next one reconnects
					assertThatThrownBy(client::listTools).isExactlyInstanceOf(RuntimeException.class)
						.hasMessage("Client failed to initialize listing tools")
						.hasRootCauseInstanceOf(TimeoutException.class);
				}
				assertThat(server.clientConnection().generation()).isEqualTo(1);
				assertThat(this.fixtures.alive()).hasSize(1);
				assertThat(server.state()).isEqualTo(ServerState.RUNNING);
			});
	}

	@Test
	void restartedServerResumesTheClientSession(CapturedOutput output) {
		AiTestSupport.runner()
			.withPropertyValues(AiTestSupport.properties(AiTestSupport.testServer("demo", this.fixtures.id()),
					List.of("mcp.stdio.servers.demo.restart.policy=on-failure",
							"mcp.stdio.servers.demo.restart.initial-backoff=100ms")))
			.run((context) -> {
				McpSyncClient client = AiTestSupport.syncClient(context);
				McpStdioServer server = context.getBean(McpStdioServers.class).get("demo");
				long pid = Long.parseLong(AiTestSupport.text(client.callTool(CallToolRequest.builder("pid").build())));
				CompletableFuture<CallToolResult> pending = CompletableFuture.supplyAsync(() -> client
					.callTool(CallToolRequest.builder("slow").arguments(Map.of("millis", 60000)).build()));
				Await.within(Duration.ofSeconds(5)).until("the slow request sent", () -> server.pendingRequests() == 1);
				StdioServerProcess first = server.process();
				AiTestSupport.kill(pid);
				// pending when the old process died: it fails and is not resent
				assertThatThrownBy(() -> pending.get(5, TimeUnit.SECONDS))
					.hasMessageContaining("exited unexpectedly with exit code 137");
				Await.within(Duration.ofSeconds(15))
					.until("restarted and initialized",
							() -> server.clientConnection().generation() == 2 && server.isInitialized());
				assertThat(server.restarts()).isEqualTo(1);
				long newPid = Long
					.parseLong(AiTestSupport.text(client.callTool(CallToolRequest.builder("pid").build())));
				assertThat(server.process()).isNotSameAs(first);
				assertThat(newPid).isEqualTo(server.pid());
				assertThat(AiTestSupport.text(client
					.callTool(CallToolRequest.builder("echo").arguments(Map.of("text", "still here")).build())))
					.isEqualTo("still here");
				assertThat(output).contains("Resumed the MCP session with server 'demo'");
				assertThat(this.fixtures.alive()).containsExactly(newPid);
			});
	}

	@Test
	void warnsWhenSpringAiConfiguresTheSameServerAndAdoptionIsOff(CapturedOutput output) {
		AiTestSupport.runner()
			.withPropertyValues(AiTestSupport.properties(AiTestSupport.testServer("demo", this.fixtures.id()),
					List.of("spring.ai.mcp.client.initialized=false", "mcp.stdio.adopt-spring-ai-stdio=false",
							"spring.ai.mcp.client.stdio.connections.demo.command=/bin/true")))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(output).contains("MCP server 'demo' is configured both under mcp.stdio.servers and "
						+ "under spring.ai.mcp.client.stdio.connections with mcp.stdio.adopt-spring-ai-stdio=false: "
						+ "two processes start");
			});
	}

	@Test
	void backsOffWhenSpringAiMcpClientIsDisabled() {
		AiTestSupport.runner()
			.withPropertyValues(AiTestSupport.properties(AiTestSupport.testServer("demo", this.fixtures.id()),
					List.of("spring.ai.mcp.client.enabled=false")))
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean("mcpStdioTransports");
				// without a client, the server performs the handshake itself
				assertThat(context.getBean(McpStdioServers.class).get("demo").isInitialized()).isTrue();
			});
	}

	@Test
	void backsOffWithoutSpringAi() {
		AiTestSupport.runner()
			.withClassLoader(new FilteredClassLoader(NamedClientMcpTransport.class))
			.withPropertyValues(AiTestSupport.properties(AiTestSupport.testServer("demo", this.fixtures.id())))
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean("mcpStdioTransports");
				assertThat(context.getBean(McpStdioServers.class).get("demo").isInitialized()).isTrue();
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class ShortInitializationTimeout {

		@Bean
		McpClientCustomizer<McpClient.SyncSpec> shortInitializationTimeout() {
			return (name, spec) -> spec.initializationTimeout(Duration.ofMillis(500))
				.requestTimeout(Duration.ofMillis(500));
		}

	}

}

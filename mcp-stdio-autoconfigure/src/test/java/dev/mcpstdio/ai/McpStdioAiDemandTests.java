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

import dev.mcpstdio.core.server.ExitCause;
import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static dev.mcpstdio.ai.AiTestSupport.properties;
import static dev.mcpstdio.ai.AiTestSupport.syncClient;
import static dev.mcpstdio.ai.AiTestSupport.text;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lazy start and idle stop under a real Spring AI client: tools appear on first use, a
 * server stopped for being idle comes back for the same client, and never during a call.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(OutputCaptureExtension.class)
@ExtendWith(NoProcessLeft.class)
class McpStdioAiDemandTests {

	private final Fixtures fixtures;

	McpStdioAiDemandTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void lazyServerStartsOnFirstUseAndComesBackAfterAnIdleStop(CapturedOutput output) {
		AiTestSupport.runner()
			.withPropertyValues(properties(AiTestSupport.testServer("demo", this.fixtures.id()),
					List.of("mcp.stdio.servers.demo.start=lazy", "mcp.stdio.servers.demo.idle-timeout=1s",
							"spring.ai.mcp.client.initialized=false")))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				McpStdioServer server = context.getBean(McpStdioServers.class).get("demo");
				assertThat(server.state()).isEqualTo(ServerState.IDLE);
				assertThat(this.fixtures.alive()).isEmpty();
				// the tools appear on first use: listing them starts the server
				ToolCallbackProvider provider = context.getBean("mcpToolCallbacks", ToolCallbackProvider.class);
				ToolCallback[] callbacks = provider.getToolCallbacks();
				assertThat(callbacks).extracting((callback) -> callback.getToolDefinition().name())
					.containsExactlyInAnyOrder("echo", "pid", "children", "slow");
				assertThat(server.state()).isEqualTo(ServerState.RUNNING);
				assertThat(server.isInitialized()).isTrue();
				ToolCallback echo = Arrays.stream(callbacks)
					.filter((callback) -> callback.getToolDefinition().name().equals("echo"))
					.findFirst()
					.orElseThrow();
				assertThat(echo.call("{\"text\":\"first\"}")).contains("first");
				StdioServerProcess first = server.process();

				// idle for a second: stopped, nothing left
				Await.within(Duration.ofSeconds(15))
					.until("the idle stop", () -> server.state() == ServerState.IDLE && server.lastExit() != null
							&& this.fixtures.alive().isEmpty());
				assertThat(server.lastExit().cause()).isEqualTo(ExitCause.IDLE);

				// the same client and callback go on: the next call starts a new process
				// and replays the client's initialize to it
				assertThat(echo.call("{\"text\":\"after the idle stop\"}")).contains("after the idle stop");
				assertThat(server.clientConnection().generation()).isEqualTo(2);
				assertThat(server.process()).isNotSameAs(first);
				assertThat(server.restarts()).isZero();
				assertThat(output).contains("Resumed the MCP session with server 'demo'");
				McpSyncClient client = syncClient(context);
				assertThat(text(client.callTool(CallToolRequest.builder("pid").build())))
					.isEqualTo(String.valueOf(server.pid()));
			});
	}

	@Test
	void idleTimeoutNeverStopsAServerDuringALongToolCall() {
		AiTestSupport.runner()
			.withPropertyValues(properties(AiTestSupport.testServer("demo", this.fixtures.id()),
					List.of("mcp.stdio.servers.demo.idle-timeout=1500ms")))
			.run((context) -> {
				McpSyncClient client = syncClient(context);
				McpStdioServer server = context.getBean(McpStdioServers.class).get("demo");
				// running and just used: no idle stop can be under way
				long pid = Long.parseLong(text(client.callTool(CallToolRequest.builder("pid").build())));
				long idleStops = server.exits(ExitCause.IDLE);
				long generation = server.clientConnection().generation();
				// more than three idle timeouts long
				CallToolResult slow = client
					.callTool(CallToolRequest.builder("slow").arguments(Map.of("millis", 5000)).build());
				assertThat(text(slow)).isEqualTo("slept");
				assertThat(server.exits(ExitCause.IDLE)).isEqualTo(idleStops);
				assertThat(server.clientConnection().generation()).isEqualTo(generation);
				assertThat(server.pid()).isEqualTo(pid);
				Await.within(Duration.ofSeconds(15))
					.until("the idle stop after the call",
							() -> server.state() == ServerState.IDLE && server.exits(ExitCause.IDLE) == idleStops + 1);
			});
	}

	@Test
	void lazyServerIsStartedAtOnceWhenSpringAiInitializesItsClientsAtStartUp() {
		// spring.ai.mcp.client.initialized defaults to true: the client's initialize is
		// the server's first message, sent while the context starts
		AiTestSupport.runner()
			.withPropertyValues(properties(AiTestSupport.testServer("demo", this.fixtures.id()),
					List.of("mcp.stdio.servers.demo.start=lazy")))
			.run((context) -> {
				McpStdioServer server = context.getBean(McpStdioServers.class).get("demo");
				assertThat(server.state()).isEqualTo(ServerState.RUNNING);
				assertThat(server.isInitialized()).isTrue();
				assertThat(this.fixtures.alive()).containsExactly(server.pid());
			});
	}

}

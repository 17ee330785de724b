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
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

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

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static dev.mcpstdio.ai.AiTestSupport.count;
import static dev.mcpstdio.ai.AiTestSupport.properties;
import static dev.mcpstdio.ai.AiTestSupport.syncClients;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One server that died, stalled or was stopped never takes the tools of the others down:
 * a real {@link ChatClient} over a scripted {@link ChatModel}, with Spring AI's tool
 * callbacks over real servers.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(OutputCaptureExtension.class)
@ExtendWith(NoProcessLeft.class)
class OneServerDownTests {

	private final Fixtures fixtures;

	@TempDir
	Path temp;

	OneServerDownTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void aChatClientCallsTheLivingServersToolWhileAnotherIsDead(CapturedOutput output) {
		AiTestSupport.runner()
			.withPropertyValues(
					properties(AiTestSupport.testServer("dead", this.fixtures.id(), "--tool-prefix", "dead_"),
							AiTestSupport.testServer("alive", this.fixtures.id(), "--tool-prefix", "alive_", "--starts",
									this.temp.resolve("starts").toString())))
			.run((context) -> {
				ToolCallbackProvider provider = provider(context);
				assertThat(toolNames(provider)).contains("dead_echo", "alive_echo", "alive_generation_1");
				McpStdioServers servers = context.getBean(McpStdioServers.class);
				McpStdioServer dead = servers.get("dead");
				AiTestSupport.kill(dead.pid());
				Await.within(Duration.ofSeconds(10)).until("dead FAILED", () -> dead.state() == ServerState.FAILED);
				// its tools are left out once it failed
				Await.within(Duration.ofSeconds(10))
					.until("the dead server's tools left out",
							() -> toolNames(provider).stream().noneMatch((name) -> name.startsWith("dead_")));
				// another server restarts: Spring AI lists every client's tools again
				servers.get("alive").restartServer();
				Await.within(Duration.ofSeconds(20))
					.until("the restarted server's new tools",
							() -> toolNames(provider).contains("alive_generation_2"));
				assertThat(toolNames(provider)).containsExactlyInAnyOrder("alive_echo", "alive_pid", "alive_children",
						"alive_slow", "alive_generation_2");
				ScriptedChatModel model = new ScriptedChatModel("alive_echo", "{\"text\":\"through the chat client\"}");
				String answer = ChatClient.builder(model)
					.build()
					.prompt("Echo something")
					.toolCallbacks(provider)
					.call()
					.content();
				assertThat(answer).startsWith("The tool answered: ").contains("through the chat client");
				// the model was offered the living server's tools only
				assertThat(model.offeredTools()).contains("alive_echo").noneMatch((name) -> name.startsWith("dead_"));
				// a call to the dead server itself still says why it fails, at once
				McpSyncClient deadClient = client(context, "dead");
				long begin = System.nanoTime();
				assertThatThrownBy(() -> deadClient.callTool(CallToolRequest.builder("dead_echo").build()))
					.hasMessageContaining(
							"MCP server 'dead' process exited unexpectedly with exit code 137 (signal 9, SIGKILL)");
				assertThat(Duration.ofNanos(System.nanoTime() - begin)).isLessThan(Duration.ofSeconds(5));
				// back when it runs again
				dead.restartServer();
				Await.within(Duration.ofSeconds(20))
					.until("the dead server's tools back", () -> toolNames(provider).contains("dead_echo"));
				assertThat(provider.getToolCallbacks()).hasSize(9);
			});
		String warn = "MCP server 'dead' is FAILED: its tools are left out of Spring AI's tool callbacks until it "
				+ "runs again (MCP server 'dead' process exited unexpectedly with exit code 137 (signal 9, SIGKILL)";
		assertThat(count(output.getOut(), warn)).isOne();
	}

	@Test
	void aToolWhoseServerDiedAfterTheListingTellsTheModelWhyAndBlocksNoOtherCall() throws Exception {
		AiTestSupport.runner()
			.withPropertyValues(
					properties(AiTestSupport.testServer("dead", this.fixtures.id(), "--tool-prefix", "dead_"),
							AiTestSupport.testServer("alive", this.fixtures.id(), "--tool-prefix", "alive_")))
			.run((context) -> {
				ToolCallbackProvider provider = provider(context);
				// taken while both ran, as a chat does before its model answers
				ToolCallback[] listed = provider.getToolCallbacks();
				assertThat(listed).hasSize(8);
				McpStdioServers servers = context.getBean(McpStdioServers.class);
				McpStdioServer dead = servers.get("dead");
				long pid = dead.pid();
				// the model asks for a slow tool; the server dies during the call
				ScriptedChatModel model = new ScriptedChatModel("dead_slow", "{\"millis\":60000}");
				CompletableFuture<String> chat = CompletableFuture.supplyAsync(() -> ChatClient.builder(model)
					.build()
					.prompt("Take your time")
					.toolCallbacks(listed)
					.call()
					.content());
				Await.within(Duration.ofSeconds(20)).until("the slow call sent", () -> dead.pendingRequests() > 0);
				// another server's call is not held by it
				long begin = System.nanoTime();
				assertThat(callEcho(provider, "alive_echo", "meanwhile")).contains("meanwhile");
				assertThat(Duration.ofNanos(System.nanoTime() - begin)).isLessThan(Duration.ofSeconds(10));
				AiTestSupport.kill(pid);
				String exit = "MCP server 'dead' process exited unexpectedly with exit code 137 (signal 9, SIGKILL)";
				// the model is told why, and answers
				assertThat(chat.get(30, TimeUnit.SECONDS)).startsWith("The tool answered: ").contains(exit);
				// a call through the tools listed before its death, after it
				ScriptedChatModel again = new ScriptedChatModel("dead_echo", "{\"text\":\"hello\"}");
				assertThat(ChatClient.builder(again).build().prompt("Echo").toolCallbacks(listed).call().content())
					.startsWith("The tool answered: ")
					.contains(exit);
			});
	}

	@Test
	void toolsOfAServerStoppedByAnOperatorAreLeftOutUntilItIsStarted(CapturedOutput output) {
		AiTestSupport.runner()
			.withPropertyValues(
					properties(AiTestSupport.testServer("stopped", this.fixtures.id(), "--tool-prefix", "stopped_"),
							AiTestSupport.testServer("other", this.fixtures.id(), "--tool-prefix", "other_")))
			.run((context) -> {
				ToolCallbackProvider provider = provider(context);
				assertThat(provider.getToolCallbacks()).hasSize(8);
				McpStdioServer stopped = context.getBean(McpStdioServers.class).get("stopped");
				// what POST /actuator/mcpservers/stopped {"action": "stop"} does
				stopped.stopServer();
				Await.within(Duration.ofSeconds(10))
					.until("the stopped server's tools left out",
							() -> toolNames(provider).stream().noneMatch((name) -> name.startsWith("stopped_")));
				assertThat(toolNames(provider)).hasSize(4).allMatch((name) -> name.startsWith("other_"));
				assertThat(callEcho(provider, "other_echo", "served")).contains("served");
				stopped.startServer();
				Await.within(Duration.ofSeconds(20))
					.until("the started server's tools back", () -> toolNames(provider).contains("stopped_echo"));
				assertThat(callEcho(provider, "stopped_echo", "again")).contains("again");
			});
		assertThat(count(output.getOut(), "MCP server 'stopped' is STOPPED: its tools are left out of Spring AI's "
				+ "tool callbacks until it runs again"))
			.isOne();
	}

	@Test
	void notInitializedAtStartUpAServerThatFailedLeavesTheOthersToolsServed(CapturedOutput output) {
		Path starts = this.temp.resolve("starts");
		AiTestSupport.runner()
			.withPropertyValues(properties(
					AiTestSupport.testServer("broken", this.fixtures.id(), "--tool-prefix", "broken_", "--starts",
							starts.toString(), "--exit-first", "1", "3"),
					AiTestSupport.testServer("good", this.fixtures.id(), "--tool-prefix", "good_"),
					List.of("spring.ai.mcp.client.initialized=false")))
			.run((context) -> {
				McpStdioServer broken = context.getBean(McpStdioServers.class).get("broken");
				Await.within(Duration.ofSeconds(10)).until("broken FAILED", () -> broken.state() == ServerState.FAILED);
				ToolCallbackProvider provider = provider(context);
				assertThat(toolNames(provider)).containsExactlyInAnyOrder("good_echo", "good_pid", "good_children",
						"good_slow");
				assertThat(callEcho(provider, "good_echo", "served")).contains("served");
				// its own client's calls name the exit
				assertThatThrownBy(() -> client(context, "broken").callTool(CallToolRequest.builder("pid").build()))
					.satisfies((thrown) -> assertThat(AiTestSupport.messages(thrown))
						.contains("MCP server 'broken' process exited unexpectedly with exit code 3"));
				broken.restartServer();
				Await.within(Duration.ofSeconds(20))
					.until("the restarted server's tools", () -> toolNames(provider).contains("broken_generation_2"));
				assertThat(callEcho(provider, "broken_echo", "back")).contains("back");
			});
		assertThat(count(output.getOut(), "MCP server 'broken' is FAILED: its tools are left out")).isOne();
	}

	@Test
	void asyncToolCallbacksLeaveADeadServerOutToo() {
		AiTestSupport.runner()
			.withPropertyValues(
					properties(AiTestSupport.testServer("dead", this.fixtures.id(), "--tool-prefix", "dead_"),
							AiTestSupport.testServer("alive", this.fixtures.id(), "--tool-prefix", "alive_"),
							List.of("spring.ai.mcp.client.type=ASYNC")))
			.run((context) -> {
				ToolCallbackProvider provider = context.getBean("mcpAsyncToolCallbacks", ToolCallbackProvider.class);
				assertThat(provider.getToolCallbacks()).hasSize(8);
				McpStdioServers servers = context.getBean(McpStdioServers.class);
				AiTestSupport.kill(servers.get("dead").pid());
				Await.within(Duration.ofSeconds(10))
					.until("the dead server's tools left out",
							() -> toolNames(provider).stream().noneMatch((name) -> name.startsWith("dead_")));
				servers.get("alive").restartServer();
				Await.within(Duration.ofSeconds(20))
					.until("alive RUNNING again", () -> servers.get("alive").state() == ServerState.RUNNING);
				assertThat(toolNames(provider)).hasSize(4).allMatch((name) -> name.startsWith("alive_"));
			});
	}

	@Test
	void anIdleServerKeepsItsToolsListedAndACallStartsIt() {
		AiTestSupport.runner()
			.withPropertyValues(
					properties(AiTestSupport.testServer("idle", this.fixtures.id(), "--tool-prefix", "idle_"),
							List.of("mcp.stdio.servers.idle.start=lazy", "mcp.stdio.servers.idle.idle-timeout=1s",
									"spring.ai.mcp.client.initialized=false")))
			.run((context) -> {
				McpStdioServer idle = context.getBean(McpStdioServers.class).get("idle");
				assertThat(idle.state()).isEqualTo(ServerState.IDLE);
				ToolCallbackProvider provider = provider(context);
				assertThat(toolNames(provider)).contains("idle_echo");
				Await.within(Duration.ofSeconds(15))
					.until("IDLE after its idle-timeout", () -> idle.state() == ServerState.IDLE && idle.pid() == null);
				assertThat(toolNames(provider)).contains("idle_echo");
				assertThat(callEcho(provider, "idle_echo", "woken")).contains("woken");
				assertThat(idle.state()).isEqualTo(ServerState.RUNNING);
			});
	}

	static ToolCallbackProvider provider(AssertableApplicationContext context) {
		return context.getBean("mcpToolCallbacks", ToolCallbackProvider.class);
	}

	static List<String> toolNames(ToolCallbackProvider provider) {
		return Arrays.stream(provider.getToolCallbacks())
			.map((callback) -> callback.getToolDefinition().name())
			.toList();
	}

	static String callEcho(ToolCallbackProvider provider, String tool, String text) {
		ToolCallback callback = Arrays.stream(provider.getToolCallbacks())
			.filter((candidate) -> candidate.getToolDefinition().name().equals(tool))
			.findFirst()
			.orElseThrow(() -> new AssertionError("no tool " + tool));
		return callback.call("{\"text\":\"" + text + "\"}");
	}

	static McpSyncClient client(AssertableApplicationContext context, String server) {
		return syncClients(context).stream()
			.filter((client) -> server.equals(client.getClientInfo().title()))
			.findFirst()
			.orElseThrow(() -> new AssertionError("no client of " + server));
	}

}

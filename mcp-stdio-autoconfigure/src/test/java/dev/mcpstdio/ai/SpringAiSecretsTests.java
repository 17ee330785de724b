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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.mcpstdio.autoconfigure.McpStdioAutoConfiguration;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static dev.mcpstdio.ai.AiTestSupport.count;
import static dev.mcpstdio.ai.AiTestSupport.findCause;
import static dev.mcpstdio.ai.AiTestSupport.properties;
import static dev.mcpstdio.ai.AiTestSupport.syncClients;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The values of a server's secret-looking {@code env} entries, and what looks like a
 * secret, never reach Spring AI or the log through the transport: the server's own
 * JSON-RPC errors, a refused replay of {@code initialize}, a line that is not JSON-RPC, a
 * failure of the client, and the stderr of adopted servers (which get the application's
 * whole environment, so its secrets are masked too).
 *
 * @author mcp-stdio authors
 */
@ExtendWith(OutputCaptureExtension.class)
@ExtendWith(NoProcessLeft.class)
class SpringAiSecretsTests {

	/** A value with no secret's shape: only its name says that it is one. */
	private static final String UPSTREAM_VALUE = "upstream-7d3f9a21c4";

	/** Only the value's registration masks it: no name or shape says it is a secret. */
	private static final String LEAKY_MESSAGE = "upstream rejected " + UPSTREAM_VALUE + "; token=abc123secret";

	private static final String MASKED_MESSAGE = "upstream rejected ******; token=******";

	private final Fixtures fixtures;

	@TempDir
	Path temp;

	SpringAiSecretsTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void aServersOwnJsonRpcErrorReachesSpringAiSanitized(CapturedOutput output) {
		AiTestSupport.runner()
			.withPropertyValues(properties(AiTestSupport.testServer("strict", this.fixtures.id()),
					List.of("mcp.stdio.servers.strict.env.UPSTREAM_API_KEY=" + UPSTREAM_VALUE)))
			.run((context) -> {
				McpSyncClient client = syncClients(context).get(0);
				Throwable thrown = catchThrowable(() -> client
					.callTool(CallToolRequest.builder("fail").arguments(Map.of("message", LEAKY_MESSAGE)).build()));
				McpError error = findCause(thrown, McpError.class);
				assertThat(error.getMessage()).isEqualTo(MASKED_MESSAGE);
				assertThat(error.getJsonRpcError().message()).isEqualTo(MASKED_MESSAGE);
			});
		assertThat(output.getOut()).doesNotContain(UPSTREAM_VALUE).doesNotContain("abc123secret");
	}

	@Test
	void stderrOfAdoptedServersMasksTheirValuesAndTheApplicationsSecrets(CapturedOutput output) {
		String applicationSecret = System.getenv("MCP_STDIO_TEST_SECRET");
		assertThat(applicationSecret).as("set by the surefire configuration").isNotNull();
		List<String> properties = new ArrayList<>();
		properties.addAll(adopted("upstream", "--say-env", "UPSTREAM_API_KEY", "40"));
		// a placeholder resolved into the connection's entry
		properties.add("spring.ai.mcp.client.stdio.connections.upstream.env.UPSTREAM_API_KEY=${upstream.key}");
		properties.add("upstream.key=" + UPSTREAM_VALUE);
		// adopted servers get the whole environment: the application's secrets too
		properties.addAll(adopted("inheriting", "--say-env", "MCP_STDIO_TEST_SECRET", "1"));
		AiTestSupport.runner().withPropertyValues(properties.toArray(String[]::new)).run((context) -> {
			McpStdioServers servers = context.getBean(McpStdioServers.class);
			Await.within(Duration.ofSeconds(10))
				.until("the stderr of both", () -> servers.get("upstream").process().stderrTail().size() == 40
						&& servers.get("inheriting").process().stderrTail().size() == 1);
			assertThat(servers.get("upstream").process().stderrTail()).containsOnly("upstream said: ******");
			assertThat(servers.get("inheriting").process().stderrTail()).containsExactly("upstream said: ******");
			// the log is written by a thread of its own
			Await.within(Duration.ofSeconds(10))
				.until("41 stderr lines logged", () -> count(output.getOut(), "upstream said: ******") == 41);
		});
		assertThat(output.getOut()).doesNotContain(UPSTREAM_VALUE).doesNotContain(applicationSecret);
	}

	@Test
	void aRefusedReplayIsLoggedSanitized(CapturedOutput output) {
		AiTestSupport.runner()
			.withPropertyValues(properties(
					AiTestSupport.testServer("picky", this.fixtures.id(), "--starts",
							this.temp.resolve("starts").toString(), "--refuse-init-after", "1", LEAKY_MESSAGE),
					List.of("mcp.stdio.servers.picky.env.UPSTREAM_API_KEY=" + UPSTREAM_VALUE)))
			.run((context) -> {
				McpStdioServer server = context.getBean(McpStdioServers.class).get("picky");
				server.restartServer();
				Await.within(Duration.ofSeconds(20))
					.until("the refused replay", () -> output.getOut().contains("refused the replayed initialize"));
			});
		assertThat(output.getOut())
			.contains("Could not resume the MCP session with server 'picky': MCP server "
					+ "'picky' refused the replayed initialize: " + MASKED_MESSAGE)
			.doesNotContain(UPSTREAM_VALUE)
			.doesNotContain("abc123secret");
	}

	@Test
	void aLineThatIsNotJsonRpcIsLoggedSanitized(CapturedOutput output) {
		AiTestSupport.runner()
			.withPropertyValues(properties(AiTestSupport.testServer("odd", this.fixtures.id()),
					List.of("mcp.stdio.servers.odd.env.UPSTREAM_API_KEY=" + UPSTREAM_VALUE)))
			.run((context) -> {
				McpSyncClient client = syncClients(context).get(0);
				client.callTool(CallToolRequest.builder("odd")
					.arguments(Map.of("text", "key " + UPSTREAM_VALUE + " token=abc123secret"))
					.build());
				Await.within(Duration.ofSeconds(10))
					.until("the warning", () -> output.getOut().contains("Skipping a message from MCP server 'odd'"));
			});
		assertThat(output.getOut()).contains("Skipping a message from MCP server 'odd' that is not JSON-RPC")
			.contains("key ****** token=******")
			.doesNotContain(UPSTREAM_VALUE)
			.doesNotContain("abc123secret");
	}

	@Test
	void aResponseWithNeitherResultNorErrorIsSkippedAndLoggedSanitized(CapturedOutput output) {
		// read in one pass as a response: its record refuses it, as the SDK's reading
		// does
		String hollow = "{\"jsonrpc\":\"2.0\",\"id\":\"hollow\",\"note\":\"key " + UPSTREAM_VALUE
				+ " token=abc123secret\"}";
		AiTestSupport.runner()
			.withPropertyValues(properties(AiTestSupport.testServer("odd", this.fixtures.id()),
					List.of("mcp.stdio.servers.odd.env.UPSTREAM_API_KEY=" + UPSTREAM_VALUE)))
			.run((context) -> {
				McpSyncClient client = syncClients(context).get(0);
				CallToolResult said = client
					.callTool(CallToolRequest.builder("say").arguments(Map.of("text", hollow)).build());
				assertThat(said.isError()).isNotEqualTo(Boolean.TRUE);
				Await.within(Duration.ofSeconds(10))
					.until("the warning", () -> output.getOut().contains("Skipping a message from MCP server 'odd'"));
			});
		assertThat(output.getOut()).contains("Skipping a message from MCP server 'odd' that is not JSON-RPC")
			.contains("key ****** token=******")
			.doesNotContain("Dropped a response of MCP server 'odd'")
			.doesNotContain(UPSTREAM_VALUE)
			.doesNotContain("abc123secret");
	}

	@Test
	void aFailureOfTheClientIsLoggedSanitized(CapturedOutput output) {
		// without Spring AI's clients: this test's handler plays the client
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(McpStdioAutoConfiguration.class))
			.withPropertyValues(properties(AiTestSupport.testServer("plain", this.fixtures.id()),
					List.of("mcp.stdio.servers.plain.env.UPSTREAM_API_KEY=" + UPSTREAM_VALUE)))
			.run((context) -> {
				McpStdioServer server = context.getBean(McpStdioServers.class).get("plain");
				assertThat(server.state()).isEqualTo(ServerState.RUNNING);
				McpStdioClientTransport transport = new McpStdioClientTransport(server,
						new JacksonMcpJsonMapper(JsonMapper.shared()));
				List<JSONRPCMessage> seen = new CopyOnWriteArrayList<>();
				transport
					.connect((message) -> message.doOnNext(seen::add)
						.then(Mono.<JSONRPCMessage>error(
								new IllegalStateException("cannot use " + UPSTREAM_VALUE + " token=abc123secret"))))
					.block(Duration.ofSeconds(10));
				transport
					.sendMessage(
							new JSONRPCRequest(McpSchema.JSONRPC_VERSION, McpSchema.METHOD_TOOLS_LIST, "list-1", null))
					.block(Duration.ofSeconds(10));
				Await.within(Duration.ofSeconds(10)).until("the answer handed to the client", () -> seen.size() == 1);
				Await.within(Duration.ofSeconds(10))
					.until("the warning",
							() -> output.getOut().contains("The MCP client of server 'plain' failed on a message"));
				transport.closeGracefully().block(Duration.ofSeconds(10));
			});
		assertThat(output.getOut())
			.contains("The MCP client of server 'plain' failed on a message: cannot use ****** token=******")
			.doesNotContain(UPSTREAM_VALUE)
			.doesNotContain("abc123secret");
	}

	private List<String> adopted(String name, String... extraArgs) {
		String prefix = "spring.ai.mcp.client.stdio.connections." + name + ".";
		List<String> properties = new ArrayList<>(AiTestSupport.testServerCommand(prefix, extraArgs));
		properties.add(prefix + "env." + Fixtures.MARKER + "=" + this.fixtures.id());
		properties.add("mcp.stdio.servers." + name + ".shutdown.stdin-close-timeout=1s");
		return properties;
	}

}

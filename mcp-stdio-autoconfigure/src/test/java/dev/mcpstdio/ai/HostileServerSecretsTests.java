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
import java.util.Map;

import dev.mcpstdio.core.secrets.SecretSanitizer;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static dev.mcpstdio.ai.AiTestSupport.properties;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A hostile server puts the values of its secret {@code env} entries into everything it
 * says: its server info and instructions, its tools' names and descriptions, the message,
 * the keys and the numbers of its errors. None of it reaches Spring AI's client, its tool
 * callbacks or any log line unmasked.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(OutputCaptureExtension.class)
@ExtendWith(NoProcessLeft.class)
class HostileServerSecretsTests {

	private static final String KEY = "up-7f1c0e9a5b2d";

	private static final String PASSWORD = "73109182";

	private final Fixtures fixtures;

	HostileServerSecretsTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void whatSpringAiGetsOfTheServerHasItsSecretValuesMasked(CapturedOutput output) {
		List<String> server = AiTestSupport.testServer("leaky", this.fixtures.id(), "--leak-env", "UPSTREAM_API_KEY");
		AiTestSupport.runner()
			.withPropertyValues(properties(server,
					List.of("mcp.stdio.servers.leaky.env.UPSTREAM_API_KEY=" + KEY,
							"mcp.stdio.servers.leaky.env.DB_PASSWORD=" + PASSWORD)))
			.run((context) -> {
				McpSyncClient client = AiTestSupport.syncClient(context);
				// the initialize result
				assertThat(client.getServerInfo().name()).isEqualTo("leaky ******");
				assertThat(client.getServerInstructions()).isEqualTo("Use ****** wisely");
				// the list handed to Spring AI, and so its tool callbacks
				List<Tool> tools = client.listTools().tools();
				// (the MCP SDK keeps only the characters a tool's name may have)
				assertThat(tools).extracting(Tool::name)
					.anyMatch((name) -> name.startsWith("tool_"))
					.noneMatch((name) -> name.contains(KEY));
				assertThat(tools).extracting(Tool::description).contains("holds ******");
				ToolCallbackProvider provider = context.getBean("mcpToolCallbacks", ToolCallbackProvider.class);
				assertThat(OneServerDownTests.toolNames(provider)).anyMatch((name) -> name.startsWith("tool_"))
					.noneMatch((name) -> name.contains(KEY));
				// an error's message, the keys of its data and a number that is a secret
				assertThatThrownBy(() -> client.callTool(CallToolRequest.builder("leaky_error").build()))
					.isInstanceOfSatisfying(McpError.class, (error) -> {
						assertThat(error.getJsonRpcError().message()).isEqualTo("upstream rejected key ******");
						assertThat(error.getJsonRpcError().data())
							.isEqualTo(Map.of(SecretSanitizer.MASK, "as a key", "pin", SecretSanitizer.MASK));
					});
			});
		// the MCP SDK logs the initialize result at INFO, Spring AI the tool's error
		assertThat(output.getOut()).contains("leaky ******").doesNotContain(KEY).doesNotContain(PASSWORD);
	}

	@Test
	void aToolsResultIsReadAsWrittenOnlyWhereNoSecretCanHideInIt() {
		List<String> server = AiTestSupport.testServer("leaky", this.fixtures.id());
		AiTestSupport.runner()
			.withPropertyValues(properties(server,
					List.of("mcp.stdio.servers.leaky.env.UPSTREAM_API_KEY=" + KEY,
							"mcp.stdio.servers.leaky.env.BANK_SECRET=4096123")))
			.run((context) -> {
				McpSyncClient client = AiTestSupport.syncClient(context);
				// nothing to mask: read at once into the client's type
				CallToolResult plain = raw(client,
						"{\"content\":[{\"type\":\"text\",\"text\":\"plain\"}],\"structuredContent\":{\"n\":42}}");
				assertThat(((TextContent) plain.content().get(0)).text()).isEqualTo("plain");
				assertThat(plain.structuredContent()).isEqualTo(Map.of("n", 42));
				// a secret as written, one behind an escape, and a number whose Java text
				// (4096123.0) holds one
				assertThat(text(raw(client, "{\"content\":[{\"type\":\"text\",\"text\":\"key " + KEY + "\"}]}")))
					.isEqualTo("key ******");
				assertThat(text(raw(client,
						"{\"content\":[{\"type\":\"text\",\"text\":\"key \\u0075" + KEY.substring(1) + "\"}]}")))
					.isEqualTo("key ******");
				CallToolResult number = raw(client,
						"{\"content\":[{\"type\":\"text\",\"text\":\"n\"}],\"structuredContent\":{\"n\":4.096123e6}}");
				assertThat(number.structuredContent()).isEqualTo(Map.of("n", SecretSanitizer.MASK));
				// a result the client's type does not take fails the call, not the wait
				assertThatThrownBy(() -> raw(client, "{\"content\":[{\"type\":\"no-such-type\"}]}"))
					.hasStackTraceContaining("no-such-type");
			});
	}

	@Test
	void anAnswerThatCannotBeReadFailsItsRequestAtOnceNamingTheServer() {
		List<String> server = AiTestSupport.testServer("leaky", this.fixtures.id());
		AiTestSupport.runner()
			.withPropertyValues(properties(server,
					List.of("mcp.stdio.servers.leaky.env.UPSTREAM_API_KEY=" + KEY,
							"spring.ai.mcp.client.request-timeout=60s")))
			.run((context) -> {
				McpSyncClient client = AiTestSupport.syncClient(context);
				long start = System.nanoTime();
				// a JSON-RPC error whose code has 2,000,000 digits: valid JSON, which no
				// client type takes
				assertThatThrownBy(() -> client
					.callTool(CallToolRequest.builder("huge_code").arguments(Map.of("digits", 2_000_000)).build()))
					.isInstanceOfSatisfying(McpError.class,
							(error) -> assertThat(error.getJsonRpcError().message())
								.startsWith("MCP server 'leaky' sent an answer that could not be read: ")
								.hasSizeLessThan(1000));
				// at once, not at the client's 60 s timeout: a generous bound for a
				// loaded
				// machine
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
				// the session goes on
				assertThat(text(raw(client, "{\"content\":[{\"type\":\"text\",\"text\":\"after\"}]}")))
					.isEqualTo("after");
			});
	}

	private static CallToolResult raw(McpSyncClient client, String result) {
		return client.callTool(CallToolRequest.builder("raw").arguments(Map.of("result", result)).build());
	}

	private static String text(CallToolResult result) {
		return ((TextContent) result.content().get(0)).text();
	}

}

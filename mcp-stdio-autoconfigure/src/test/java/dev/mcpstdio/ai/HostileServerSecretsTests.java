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

import java.util.List;
import java.util.Map;

import dev.mcpstdio.core.secrets.SecretSanitizer;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
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

}

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

package dev.mcpstdio.autoconfigure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The values of a server's secret-looking {@code env} entries are masked wherever they
 * appear, also when they have no secret's shape, and also when they came from a
 * placeholder: in the log of its stderr, its stderr tail, a refused handshake and the
 * warning about a stdout line that is not JSON-RPC (without Spring AI; the Spring AI
 * paths are in {@code dev.mcpstdio.ai.SpringAiSecretsTests}).
 *
 * @author mcp-stdio authors
 */
@ExtendWith(OutputCaptureExtension.class)
@ExtendWith(NoProcessLeft.class)
class ServerSecretValuesTests {

	/** A value with no secret's shape: only its name says that it is one. */
	static final String UPSTREAM_VALUE = "upstream-7d3f9a21c4";

	private final Fixtures fixtures;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(McpStdioAutoConfiguration.class));

	@TempDir
	Path temp;

	ServerSecretValuesTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void aRefusedHandshakeQuotesTheServerSanitized(CapturedOutput output) {
		this.runner.withPropertyValues(server("picky", "refuses-init-secret.sh"))
			.withPropertyValues("mcp.stdio.servers.picky.env.UPSTREAM_API_KEY=" + UPSTREAM_VALUE)
			.run((context) -> {
				McpStdioServer server = context.getBean(McpStdioServers.class).get("picky");
				assertThat(server.state()).isEqualTo(ServerState.FAILED);
				assertThat(server.lastFailure())
					.isEqualTo("MCP server 'picky' refused initialize: upstream rejected ******; token=******");
			});
		assertThat(output.getOut()).contains("refused initialize: upstream rejected ******; token=******")
			.doesNotContain(UPSTREAM_VALUE);
	}

	@Test
	void stdoutThatIsNotJsonRpcAndStderrAreLoggedSanitized(CapturedOutput output) {
		this.runner.withPropertyValues(server("chatty", "non-json-secret.sh"))
			// a placeholder resolved into the entry: its value is masked too
			.withPropertyValues("mcp.stdio.servers.chatty.env.UPSTREAM_API_KEY=${upstream.key}",
					"upstream.key=" + UPSTREAM_VALUE)
			.run((context) -> {
				McpStdioServer server = context.getBean(McpStdioServers.class).get("chatty");
				assertThat(server.state()).isEqualTo(ServerState.RUNNING);
				awaitStderr(server, "upstream key is ******");
				assertThat(server.process().stderrTail()).containsExactly("upstream key is ******");
			});
		assertThat(output.getOut())
			.contains("MCP server 'chatty' wrote a line to stdout that is not JSON-RPC; skipped it: connecting "
					+ "upstream with key ****** (not JSON)")
			.contains("upstream key is ******")
			.doesNotContain(UPSTREAM_VALUE);
	}

	@Test
	void placeholdersOfTheServersFileAreMaskedInTheirEntry(CapturedOutput output) throws IOException {
		Path file = Files.writeString(this.temp.resolve("servers.json"), """
				{"mcpServers": {"filed": {"command": "sh", "args": ["%s"],
				  "env": {"UPSTREAM_API_KEY": "${upstream.key}", "%s": "%s"}}}}
				""".formatted(Fixtures.script("non-json-secret.sh"), Fixtures.MARKER, this.fixtures.id()),
				StandardCharsets.UTF_8);
		this.runner.withPropertyValues("mcp.stdio.servers-configuration=" + file, "upstream.key=" + UPSTREAM_VALUE)
			.run((context) -> {
				McpStdioServer server = context.getBean(McpStdioServers.class).get("filed");
				awaitStderr(server, "upstream key is ******");
			});
		assertThat(output.getOut()).contains("upstream key is ******").doesNotContain(UPSTREAM_VALUE);
	}

	@Test
	void aPlaceholderOfASecretVariableIsMaskedWhateverTheEntrysName(CapturedOutput output) {
		// MCP_STDIO_TEST_SECRET is set by surefire: its name looks secret, UPSTREAM does
		// not
		String secret = System.getenv("MCP_STDIO_TEST_SECRET");
		assertThat(secret).isNotNull();
		this.runner.withPropertyValues(server("quoting", "non-json-secret.sh"))
			.withPropertyValues(
					"mcp.stdio.servers.quoting.env.UPSTREAM_URL=https://example.org/?k=${MCP_STDIO_TEST_SECRET}",
					"mcp.stdio.servers.quoting.env.UPSTREAM_API_KEY=prefix-${MCP_STDIO_TEST_SECRET}")
			.run((context) -> {
				McpStdioServer server = context.getBean(McpStdioServers.class).get("quoting");
				awaitStderr(server, "upstream url is https://example.org/?k=******");
				// the whole value of the secret entry, and the placeholder's value in it
				assertThat(server.process().stderrTail()).contains("upstream key is ******");
			});
		assertThat(output.getOut()).contains("upstream url is https://example.org/?k=******").doesNotContain(secret);
	}

	private String[] server(String name, String script) {
		String prefix = "mcp.stdio.servers." + name + ".";
		return new String[] { prefix + "command=sh", prefix + "args[0]=" + Fixtures.script(script),
				prefix + "env." + Fixtures.MARKER + "=" + this.fixtures.id(),
				prefix + "shutdown.stdin-close-timeout=1s", prefix + "shutdown.terminate-timeout=1s" };
	}

	private static void awaitStderr(McpStdioServer server, String line) {
		Await.that("stderr line '" + line + "'",
				() -> server.process() != null && server.process().stderrTail().contains(line));
	}

}

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

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.McpServerExitedException;
import dev.mcpstdio.autoconfigure.McpStdioAutoConfiguration;
import dev.mcpstdio.McpServerStartupException;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static dev.mcpstdio.ai.AiTestSupport.properties;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code required: true} on a {@code start: lazy} server, as docs/configuration.md and
 * docs/spring-ai.md describe it: without Spring AI nothing starts it at start-up, so
 * {@code required} does not apply and its first use fails like any other lazy server's;
 * with Spring AI its client is initialized at start-up whatever
 * {@code spring.ai.mcp.client.initialized} says, so the server starts with the
 * application and one that cannot start fails start-up.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class RequiredLazyServerTests {

	private final Fixtures fixtures;

	@TempDir
	Path temp;

	RequiredLazyServerTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void withoutSpringAiRequiredHasNoEffectOnALazyServer() throws Exception {
		Path starts = this.temp.resolve("starts");
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(McpStdioAutoConfiguration.class))
			.withPropertyValues(properties(
					AiTestSupport.testServer("broken", this.fixtures.id(), "--starts", starts.toString(), "--exit-now",
							"3"),
					List.of("mcp.stdio.servers.broken.required=true", "mcp.stdio.servers.broken.start=lazy")))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				McpStdioServer server = context.getBean(McpStdioServers.class).get("broken");
				assertThat(server.state()).isEqualTo(ServerState.IDLE);
				assertThat(starts).as("no process at start-up").doesNotExist();
				// the first message starts it, and the caller learns that it could not
				assertThatThrownBy(() -> server.request(1, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}")
					.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
					.cause()
					.isInstanceOf(McpServerExitedException.class)
					.hasMessageContaining("MCP server 'broken' process exited unexpectedly with exit code 3");
				assertThat(server.state()).isEqualTo(ServerState.FAILED);
				assertThat(Files.readAllLines(starts, StandardCharsets.UTF_8)).hasSize(1);
				// the application goes on
				assertThat(context.isRunning()).isTrue();
			});
	}

	@Test
	void withSpringAiARequiredLazyServerStartsWithTheApplication() {
		Path starts = this.temp.resolve("starts");
		AiTestSupport.runnerWithEndpoint()
			.withPropertyValues(
					properties(AiTestSupport.testServer("demo", this.fixtures.id(), "--starts", starts.toString()),
							AiTestSupport.testServer("other", this.fixtures.id()),
							List.of("mcp.stdio.servers.demo.required=true", "mcp.stdio.servers.demo.start=lazy",
									"mcp.stdio.servers.other.start=lazy", "spring.ai.mcp.client.initialized=false")))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				McpStdioServers servers = context.getBean(McpStdioServers.class);
				assertThat(servers.get("demo").state()).isEqualTo(ServerState.RUNNING);
				assertThat(servers.get("demo").isInitialized()).isTrue();
				assertThat(servers.get("demo").process()).isNotNull();
				assertThat(this.fixtures.alive()).contains(servers.get("demo").pid());
				// a lazy server that is not required waits for its first use
				assertThat(servers.get("other").state()).isEqualTo(ServerState.IDLE);
			});
		assertThat(starts).exists();
	}

	@Test
	void withSpringAiARequiredLazyServerThatCannotStartFailsStartUp() {
		Path starts = this.temp.resolve("starts");
		AiTestSupport.runnerWithEndpoint()
			.withPropertyValues(properties(
					AiTestSupport.testServer("broken", this.fixtures.id(), "--starts", starts.toString(), "--exit-now",
							"3", "--stderr", "boom: missing dependency"),
					List.of("mcp.stdio.servers.broken.required=true", "mcp.stdio.servers.broken.start=lazy",
							"spring.ai.mcp.client.initialized=false")))
			.run((context) -> {
				assertThat(context).hasFailed();
				McpServerStartupException startup = AiTestSupport.findCause(context.getStartupFailure(),
						McpServerStartupException.class);
				assertThat(startup.serverName()).isEqualTo("broken");
				assertThat(startup.getMessage()).startsWith("MCP server 'broken' is required but could not start: "
						+ "MCP server 'broken' process exited unexpectedly with exit code 3; stderr: boom: missing "
						+ "dependency");
			});
		assertThat(starts).exists();
	}

}

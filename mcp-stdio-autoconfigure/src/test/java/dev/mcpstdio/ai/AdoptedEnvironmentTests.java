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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.mcpstdio.autoconfigure.McpStdioOrphanGuardAutoConfiguration;
import dev.mcpstdio.McpServerStartupException;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static dev.mcpstdio.ai.AiTestSupport.TOKEN_VARIABLE;
import static dev.mcpstdio.ai.AiTestSupport.count;
import static dev.mcpstdio.ai.AiTestSupport.findCause;
import static dev.mcpstdio.ai.AiTestSupport.syncClients;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Adding the starter changes nothing else: a server adopted from Spring AI's stdio
 * configuration gets the environment Spring AI's transport gave it (the application's
 * whole environment) unless {@code inherit-env: false} is set for it, and a hint about a
 * withheld variable names the property in the user's own key.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(OutputCaptureExtension.class)
@ExtendWith(NoProcessLeft.class)
class AdoptedEnvironmentTests {

	private static final String CONNECTIONS = "spring.ai.mcp.client.stdio.connections.";

	private final Fixtures fixtures;

	@TempDir
	Path temp;

	AdoptedEnvironmentTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void anAdoptedServerGetsTheVariablesSpringAiGaveIt(CapturedOutput output) {
		assertThat(System.getenv(TOKEN_VARIABLE)).as("set by the surefire configuration").isNotNull();
		AiTestSupport.runner()
			.withPropertyValues(adopted("brave", "--require-env", TOKEN_VARIABLE).toArray(String[]::new))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(McpStdioServers.class).get("brave").state()).isEqualTo(ServerState.RUNNING);
				assertThat(syncClients(context)).singleElement().satisfies((client) -> {
					assertThat(client.isInitialized()).isTrue();
					assertThat(client.listTools().tools()).hasSize(4);
				});
			});
		assertThat(count(output.getOut(),
				"MCP servers adopted from spring.ai.mcp.client.stdio get the "
						+ "application's whole environment, as Spring AI's own stdio transport gave it: brave (set "
						+ "mcp.stdio.servers.<name>.inherit-env=false to give one only the allow-list and its env)"))
			.isOne();
	}

	@Test
	void withInheritEnvFalseTheHintNamesTheSpringAiProperty() {
		List<String> properties = adopted("brave", "--require-env", TOKEN_VARIABLE);
		properties.add("mcp.stdio.servers.brave.inherit-env=false");
		properties.add("mcp.stdio.servers.brave.required=true");
		AiTestSupport.runner().withPropertyValues(properties.toArray(String[]::new)).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(findCause(context.getStartupFailure(), McpServerStartupException.class).getMessage())
				.endsWith("pass it with " + CONNECTIONS + "brave.env." + TOKEN_VARIABLE + "=${" + TOKEN_VARIABLE
						+ "} or set mcp.stdio.servers.brave.inherit-env=true");
		});
	}

	@Test
	void aServerOfMcpStdiosFileHasAHintNamingTheFile() throws IOException {
		Path file = Files.writeString(this.temp.resolve("servers.json"), """
				{"mcpServers": {"needy": {"command": "%s", "args": %s, "env": {"%s": "%s"}}}}
				""".formatted(AiTestSupport.java(), AiTestSupport.testServerArgsJson("--require-env", TOKEN_VARIABLE),
				Fixtures.MARKER, this.fixtures.id()));
		AiTestSupport.runner()
			// a server of the file has no properties of its own: required by default
			.withPropertyValues("mcp.stdio.servers-configuration=" + file, "mcp.stdio.defaults.required=true")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(findCause(context.getStartupFailure(), McpServerStartupException.class).getMessage())
					.endsWith("pass it with \"env\": {\"" + TOKEN_VARIABLE + "\": \"${" + TOKEN_VARIABLE + "}\"} in "
							+ file + " mcpServers.needy or set mcp.stdio.servers.needy.inherit-env=true");
			});
	}

	@Test
	void eachAdoptedServerIsLoggedOnceAlsoWithTheOrphanGuard(CapturedOutput output) {
		AiTestSupport.runner()
			.withConfiguration(AutoConfigurations.of(McpStdioOrphanGuardAutoConfiguration.class))
			.withPropertyValues(adopted("once").toArray(String[]::new))
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(count(output.getOut(), "Adopted MCP server 'once' from " + CONNECTIONS + "once")).isOne();
	}

	private List<String> adopted(String name, String... extraArgs) {
		String prefix = CONNECTIONS + name + ".";
		List<String> properties = new ArrayList<>(AiTestSupport.testServerCommand(prefix, extraArgs));
		properties.add(prefix + "env." + Fixtures.MARKER + "=" + this.fixtures.id());
		properties.add("mcp.stdio.servers." + name + ".shutdown.stdin-close-timeout=1s");
		return properties;
	}

}

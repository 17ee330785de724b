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

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.RestartPolicy;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for how properties bind: what binding alone would silently ignore (a server name
 * with a dot, a misspelt key, an unresolved placeholder) and values that cannot be
 * converted, each a report naming server and property before any process starts.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class McpStdioPropertyNamesTests {

	private final Fixtures fixtures;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(McpStdioAutoConfiguration.class));

	@TempDir
	Path temp;

	McpStdioPropertyNamesTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void serverNameWithADotOutsideBracketsIsAnError() {
		Path started = this.temp.resolve("started");
		this.runner.withPropertyValues(ConfigurationTestSupport.witness("good", this.fixtures, started))
			.withPropertyValues(echo("my.server"))
			.run((context) -> {
				FailureAnalysis analysis = ConfigurationTestSupport.assertFailure(context, "my.server",
						"mcp.stdio.servers.my.server.command",
						"'server' is not a key of a server, so this property configures nothing: a server name with a "
								+ "dot must be written in brackets",
						"write mcp.stdio.servers[my.server].command (in YAML: \"[my.server]\":), or rename the server");
				assertThat(analysis.getDescription()).contains("Property: mcp.stdio.servers.my.server.args")
					.contains("Property: mcp.stdio.servers.my.server.env." + Fixtures.MARKER);
				ConfigurationTestSupport.assertNeverStarted(started);
			});
	}

	@Test
	void serverNameWithADotInBracketsIsOneServer() {
		this.runner.withPropertyValues(echo("[my.server]")).run((context) -> {
			assertThat(context).hasNotFailed();
			McpStdioServer server = context.getBean(McpStdioServers.class).get("my.server");
			assertThat(context.getBean("mcpStdioServer.my.server")).isSameAs(server);
			assertThat(server.state()).isEqualTo(ServerState.RUNNING);
			// contains: the sh fixture forks a helper for each message it reads
			assertThat(this.fixtures.alive()).contains(server.pid());
		});
	}

	@Test
	void misspeltKeyIsAnError() {
		this.runner.withPropertyValues(echo("a"))
			.withPropertyValues("mcp.stdio.servers.a.restart.polcy=always", "mcp.stdio.servers.a.requird=true",
					"mcp.stdio.defaults.shutdown.drain-timout=1s")
			.run((context) -> {
				FailureAnalysis analysis = ConfigurationTestSupport.assertFailure(context, "a",
						"mcp.stdio.servers.a.restart.polcy",
						"'polcy' is not a key here, so this property configures " + "nothing", "use one of the keys: ");
				assertThat(analysis.getDescription()).contains("Property: mcp.stdio.servers.a.requird")
					.contains("Server: (defaults)\n    Property: mcp.stdio.defaults.shutdown.drain-timout");
				assertThat(analysis.getAction()).contains("max-restarts").contains("policy");
			});
	}

	@Test
	void environmentVariablesBindAsBootBindsThem() {
		Map<String, Object> variables = new LinkedHashMap<>();
		variables.put("MCP_STDIO_SERVERS_A_COMMAND", "sh");
		variables.put("MCP_STDIO_SERVERS_A_ARGS", Fixtures.script("echo.sh"));
		// the dashed keys, in both the current and the legacy form
		variables.put("MCP_STDIO_SERVERS_A_INHERIT_ENV", "true");
		variables.put("MCP_STDIO_SERVERS_A_SHUTDOWN_DRAINTIMEOUT", "1s");
		variables.put("MCP_STDIO_SERVERS_A_RESTART_POLICY", "on-failure");
		// a variable's name cannot be a map key in this form (it would be lower-cased)
		this.runner.withPropertyValues("mcp.stdio.servers.a.env." + Fixtures.MARKER + "=" + this.fixtures.id())
			.withInitializer((context) -> context.getEnvironment()
				.getPropertySources()
				.addFirst(new SystemEnvironmentPropertySource(
						"test-" + StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables)))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				McpStdioServer server = context.getBean(McpStdioServers.class).get("a");
				assertThat(server.definition().spec().inheritEnv()).isTrue();
				assertThat(server.definition().spec().shutdown().drain()).isEqualTo(Duration.ofSeconds(1));
				assertThat(server.definition().restart().mode()).isEqualTo(RestartPolicy.Mode.ON_FAILURE);
				assertThat(this.fixtures.alive()).contains(server.pid());
			});
	}

	@Test
	void unresolvedPlaceholderInCommandArgsOrEnvIsAnErrorNamingTheKey() {
		Path started = this.temp.resolve("started");
		this.runner.withPropertyValues(ConfigurationTestSupport.witness("good", this.fixtures, started))
			.withPropertyValues(echo("a"))
			.withPropertyValues("mcp.stdio.servers.a.env.MY_TOKEN=${MY_TOKEN_NOT_SET_MCP}",
					"mcp.stdio.servers.a.args[1]=--key=${MCP_STDIO_TEST_SECRET}-${OTHER_NOT_SET_MCP}")
			.run((context) -> {
				FailureAnalysis analysis = ConfigurationTestSupport.assertFailure(context, "a",
						"mcp.stdio.servers.a.env.MY_TOKEN",
						"the placeholder ${MY_TOKEN_NOT_SET_MCP} cannot be resolved: no property or environment "
								+ "variable MY_TOKEN_NOT_SET_MCP is set",
						"set MY_TOKEN_NOT_SET_MCP, give a default with ${MY_TOKEN_NOT_SET_MCP:default}");
				assertThat(analysis.getDescription()).contains("Property: mcp.stdio.servers.a.args[1]")
					.contains("${OTHER_NOT_SET_MCP}")
					.doesNotContain("s3cr3t-value");
				ConfigurationTestSupport.assertNeverStarted(started);
			});
	}

	@Test
	void resolvedAndEscapedPlaceholdersAreFine() {
		this.runner.withPropertyValues(echo("a"))
			.withPropertyValues("mcp.stdio.servers.a.env.FROM_ENV=${MCP_STDIO_TEST_SECRET}",
					"mcp.stdio.servers.a.env.LITERAL=\\${NOT_RESOLVED}", "mcp.stdio.servers.a.env.DEFAULTED=${NONE:x}")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(McpStdioServers.class).get("a").definition().spec().env())
					.containsEntry("FROM_ENV", "s3cr3t-value")
					.containsEntry("LITERAL", "${NOT_RESOLVED}")
					.containsEntry("DEFAULTED", "x");
			});
	}

	@ParameterizedTest
	@ValueSource(strings = { "on-failure", "ON_FAILURE", "onFailure", "On-Failure" })
	void restartPolicyBindsRelaxed(String value) {
		this.runner.withPropertyValues(echo("a"))
			.withPropertyValues("mcp.stdio.servers.a.enabled=false", "mcp.stdio.servers.a.restart.policy=" + value)
			.run((context) -> assertThat(context.getBean(McpStdioServers.class).get("a").definition().restart().mode())
				.isEqualTo(RestartPolicy.Mode.ON_FAILURE));
	}

	@Test
	void valuesThatCannotBeConvertedAreAllReported() {
		Path started = this.temp.resolve("started");
		this.runner.withPropertyValues(ConfigurationTestSupport.witness("good", this.fixtures, started))
			.withPropertyValues(echo("a"))
			.withPropertyValues("mcp.stdio.servers.a.restart.policy=sometimes",
					"mcp.stdio.servers.a.shutdown.drain-timeout=abc", "mcp.stdio.servers.a.max-message-size=lots",
					"mcp.stdio.defaults.required=maybe", "mcp.stdio.servers.a.stderr-tail-lines=many",
					"mcp.stdio.servers.a.startup-timeout=ghp_abcdefghijklmnopqrstuvwxyz0123456789")
			.run((context) -> {
				FailureAnalysis analysis = ConfigurationTestSupport.assertFailure(context, "a",
						"mcp.stdio.servers.a.restart.policy", "'sometimes' is not one of never, on-failure, always",
						"use one of never, on-failure, always");
				assertThat(analysis.getDescription())
					.contains("Property: mcp.stdio.servers.a.shutdown.drain-timeout\n    Problem: 'abc' is not a "
							+ "duration such as 500ms, 2s or 1m")
					.contains("Property: mcp.stdio.servers.a.max-message-size\n    Problem: 'lots' is not a size "
							+ "such as 512KB or 16MB")
					.contains("Server: (defaults)\n    Property: mcp.stdio.defaults.required\n    Problem: 'maybe' is "
							+ "not true or false")
					.contains("Property: mcp.stdio.servers.a.stderr-tail-lines\n    Problem: 'many' is not a whole "
							+ "number")
					// what could be a secret pasted in the wrong place is not quoted
					.contains("Property: mcp.stdio.servers.a.startup-timeout\n    Problem: the value is not a "
							+ "duration")
					.doesNotContain("ghp_");
				ConfigurationTestSupport.assertNeverStarted(started);
			});
	}

	private String[] echo(String name) {
		return ConfigurationTestSupport.echo(name, this.fixtures);
	}

}

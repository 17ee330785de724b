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
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.core.io.ByteArrayResource;

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
			.withInitializer(environmentVariables(variables))
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

	@Test
	void serverNameThatBindingWouldChangeIsAnError() {
		// relaxed binding drops what a property name cannot hold: this would be 'srvx'
		String shown = "s\u00e9rv\\u202e \\u0007x";
		Path started = this.temp.resolve("started");
		this.runner.withPropertyValues(ConfigurationTestSupport.witness("good", this.fixtures, started))
			.withInitializer(yaml("""
					mcp.stdio.servers:
					  "s\u00e9rv\\u202e \\u0007x":
					    command: sh
					    args: [%s]
					""".formatted(Fixtures.script("echo.sh"))))
			.run((context) -> {
				FailureAnalysis analysis = ConfigurationTestSupport.assertFailure(context, shown,
						"mcp.stdio.servers." + shown + ".command",
						"the server's name '" + shown + "' holds characters a property name cannot, so binding would "
								+ "silently make it 'srvx'; a name is 1 to 64 letters, digits, '.', '_' or '-'",
						"rename the server (a name with a dot goes in brackets: mcp.stdio.servers[my.server].command)");
				assertThat(analysis.getDescription()).contains("Property: mcp.stdio.servers." + shown + ".args[0]")
					.doesNotContain("\u202e", "\u0007");
				ConfigurationTestSupport.assertNeverStarted(started);
			});
		// a properties file, and an environment variable
		this.runner.withPropertyValues("mcp.stdio.servers.my server.command=sh")
			.run((context) -> ConfigurationTestSupport.assertFailure(context, "my server",
					"mcp.stdio.servers.my server.command", "so binding would silently make it 'myserver'",
					"rename the server"));
		this.runner.withInitializer(environmentVariables(Map.of("MCP_STDIO_SERVERS_S\u00c9RV_COMMAND", "sh")))
			.run((context) -> ConfigurationTestSupport.assertFailure(context, "S\u00c9RV",
					"MCP_STDIO_SERVERS_S\u00c9RV_COMMAND", "so binding would silently make it 'srv'",
					"rename the server"));
	}

	@Test
	void keyThatBindingWouldChangeIsAnError() {
		this.runner.withPropertyValues(echo("a"))
			.withPropertyValues("mcp.stdio.servers.a.env.MY VAR=1", "mcp.stdio.defaults.shutdown.drain-t\u00efmeout=1s")
			.run((context) -> {
				FailureAnalysis analysis = ConfigurationTestSupport.assertFailure(context, "a",
						"mcp.stdio.servers.a.env.MY VAR",
						"'MY VAR' holds characters a property name cannot, so binding would silently read it as 'MYVAR'",
						"remove them, or write it in brackets ([MY VAR]) to keep it as written");
				assertThat(analysis.getDescription()).contains("Server: (defaults)\n    Property: "
						+ "mcp.stdio.defaults.shutdown.drain-t\u00efmeout\n    Problem: 'drain-t\u00efmeout' holds "
						+ "characters a property name cannot");
			});
		// in brackets it is kept as written
		this.runner.withPropertyValues(echo("a"))
			.withPropertyValues("mcp.stdio.servers.a.enabled=false", "mcp.stdio.servers.a.env[MY VAR]=1")
			.run((context) -> assertThat(context.getBean(McpStdioServers.class).get("a").definition().spec().env())
				.containsEntry("MY VAR", "1"));
	}

	@Test
	void valuesOfTheWrongShapeAreErrors() {
		// binding would give a an env of 0=1 and 1=2, b an args of nothing, and take
		// the built-in values for the rest
		Path started = this.temp.resolve("started");
		this.runner.withPropertyValues(ConfigurationTestSupport.witness("good", this.fixtures, started))
			.withInitializer(yaml("""
					mcp.stdio:
					  defaults:
					    required: [true]
					  servers:
					    a:
					      command: sh
					      args: [%1$s]
					      env: [1, 2]
					    b:
					      command: sh
					      args: { script: %1$s }
					      env:
					        LEVELS: [debug, info]
					      working-directory: [/tmp]
					      restart:
					        policy: { when: failure }
					""".formatted(Fixtures.script("echo.sh"))))
			.run((context) -> {
				FailureAnalysis analysis = ConfigurationTestSupport.assertFailure(context, "a",
						"mcp.stdio.servers.a.env[0]", "'env' is a map of names to values, written here as a list",
						"write name: value pairs: env: { LOG_LEVEL: debug } in YAML, env.LOG_LEVEL=debug in "
								+ "properties");
				assertThat(analysis.getDescription()).contains("Property: mcp.stdio.servers.a.env[1]")
					.contains("Server: b\n    Property: mcp.stdio.servers.b.env.LEVELS[0]\n    Problem: the value of "
							+ "an entry of 'env' is one string, written here as a list")
					.contains("Server: b\n    Property: mcp.stdio.servers.b.args.script\n    Problem: 'args' is a "
							+ "list, written here as a map")
					.contains("Property: mcp.stdio.servers.b.working-directory[0]\n    Problem: 'working-directory' "
							+ "takes one value, written here as a list or a map")
					.contains("Property: mcp.stdio.servers.b.restart.policy.when\n    Problem: 'policy' takes one "
							+ "value")
					.contains("Server: (defaults)\n    Property: mcp.stdio.defaults.required[0]\n    Problem: "
							+ "'required' takes one value");
				assertThat(analysis.getAction()).contains(
						"mcp.stdio.servers.b.args.script: write a list: args: [a, b] in YAML, args[0]=a in properties");
				ConfigurationTestSupport.assertNeverStarted(started);
			});
	}

	@Test
	void envEntryFromAnEnvironmentVariableIsAnError() {
		// binding would give the server github.token, not GITHUB_TOKEN
		this.runner.withPropertyValues(echo("a"))
			.withInitializer(environmentVariables(Map.of("MCP_STDIO_SERVERS_A_ENV_GITHUB_TOKEN", "ghp_notshown")))
			.run((context) -> assertThat(ConfigurationTestSupport
				.assertFailure(context, "a", "MCP_STDIO_SERVERS_A_ENV_GITHUB_TOKEN",
						"an environment variable cannot set an entry of env: binding would lower-case the entry's name "
								+ "and split it at each '_' (mcp.stdio.servers.a.env.github.token)",
						"set the entry in application.yml or application.properties")
				.getDescription()).doesNotContain("ghp_"));
	}

	@Test
	void variableNameTheOperatingSystemRefusesIsAnError() {
		this.runner.withPropertyValues(echo("a"))
			.withInitializer(yaml("mcp.stdio.servers.a.env: { \"[A=B]\": x }"))
			.run((context) -> ConfigurationTestSupport.assertFailure(context, "a", "mcp.stdio.servers.a.env[A=B]",
					"'A=B' cannot name an environment variable: a name is not empty and holds no '=' or NUL",
					"rename the variable"));
	}

	private static ApplicationContextInitializer<ConfigurableApplicationContext> yaml(String yaml) {
		return (context) -> {
			try {
				for (PropertySource<?> source : new YamlPropertySourceLoader().load("test.yml",
						new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)))) {
					context.getEnvironment().getPropertySources().addFirst(source);
				}
			}
			catch (IOException ex) {
				throw new IllegalStateException(ex);
			}
		};
	}

	private static ApplicationContextInitializer<ConfigurableApplicationContext> environmentVariables(
			Map<String, Object> variables) {
		return (context) -> context.getEnvironment()
			.getPropertySources()
			.addFirst(new SystemEnvironmentPropertySource(
					"test-" + StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables));
	}

	private String[] echo(String name) {
		return ConfigurationTestSupport.echo(name, this.fixtures);
	}

}

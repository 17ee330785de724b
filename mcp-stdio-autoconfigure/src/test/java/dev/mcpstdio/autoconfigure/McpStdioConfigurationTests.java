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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.mcpstdio.McpStdioConfigurationException;
import dev.mcpstdio.autoconfigure.config.McpStdioProperties;
import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.server.ShutdownTimeouts;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.Demand;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.Limits;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.RestartPolicy;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.lifecycle.StartMode;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for the conditions of {@link McpStdioAutoConfiguration} and for every
 * configuration error of the contract: each stops start-up with a failure analysis that
 * names the server and the property, before any process is started.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(OutputCaptureExtension.class)
@ExtendWith(NoProcessLeft.class)
class McpStdioConfigurationTests {

	private static final String CLASSPATH_MARKER = "servers-classpath-json";

	private final Fixtures fixtures;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(McpStdioAutoConfiguration.class));

	@TempDir
	Path temp;

	McpStdioConfigurationTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@AfterEach
	void noProcessLeftBehind() {
		Fixtures.assertNoneAlive(CLASSPATH_MARKER, Duration.ofSeconds(5));
	}

	@Test
	void disabledGivesNoServerBeansAndNoRegistry() {
		this.runner.withPropertyValues("mcp.stdio.enabled=false").withPropertyValues(echo("a")).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(McpStdioServers.class);
			assertThat(context).doesNotHaveBean(McpStdioServer.class);
			assertThat(context).doesNotHaveBean(McpStdioProperties.class);
			this.fixtures.assertNeverStarted();
		});
	}

	@Test
	void disabledSkipsValidationToo() {
		// a switched-off starter must not fail start-up over its own configuration
		this.runner.withPropertyValues("mcp.stdio.enabled=false", "mcp.stdio.servers.a.args=x")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void noServersGivesAnEmptyRegistry() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(McpStdioServers.class);
			assertThat(context).doesNotHaveBean(McpStdioServer.class);
			assertThat(context.getBean(McpStdioServers.class).list()).isEmpty();
		});
	}

	@Test
	void serverValueOverridesDefaultsWhichOverrideBuiltIns() {
		String a = "mcp.stdio.servers.a.";
		this.runner.withPropertyValues(echo("a"))
			.withPropertyValues(echo("b"))
			.withPropertyValues("mcp.stdio.defaults.enabled=false", a + "enabled=true",
					"mcp.stdio.defaults.startup-timeout=20s", a + "startup-timeout=10s",
					"mcp.stdio.defaults.max-message-size=1MB", "mcp.stdio.defaults.stderr-tail-lines=7",
					a + "stderr-tail-lines=9", "mcp.stdio.defaults.shutdown.drain-timeout=3s",
					a + "shutdown.drain-timeout=1s", "mcp.stdio.defaults.shutdown.terminate-timeout=4s",
					"mcp.stdio.defaults.restart.policy=on-failure", a + "restart.policy=always",
					"mcp.stdio.defaults.restart.max-restarts=2", a + "restart.initial-backoff=100ms",
					"mcp.stdio.defaults.inherit-env=true", a + "inherit-env=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				McpStdioServers servers = context.getBean(McpStdioServers.class);
				McpStdioServerDefinition first = servers.get("a").definition();
				McpStdioServerDefinition second = servers.get("b").definition();
				// enabled: per-server true over defaults false
				assertThat(first.enabled()).isTrue();
				assertThat(second.enabled()).isFalse();
				assertThat(servers.get("a").state()).isEqualTo(ServerState.RUNNING);
				assertThat(servers.get("b").state()).isEqualTo(ServerState.DISABLED);
				assertThat(first.required()).isFalse();
				assertThat(first.spec().startupTimeout()).isEqualTo(Duration.ofSeconds(10));
				assertThat(second.spec().startupTimeout()).isEqualTo(Duration.ofSeconds(20));
				assertThat(first.spec().maxMessageSize()).isEqualTo(DataSize.ofMegabytes(1).toBytes());
				assertThat(first.spec().stderrTailLines()).isEqualTo(9);
				assertThat(second.spec().stderrTailLines()).isEqualTo(7);
				assertThat(first.spec().inheritEnv()).isFalse();
				assertThat(second.spec().inheritEnv()).isTrue();
				assertThat(first.spec().sendTimeout()).isEqualTo(Duration.ofSeconds(30));
				// shutdown: server, defaults, built-in per key
				assertThat(first.spec().shutdown()).isEqualTo(
						new ShutdownTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4)));
				assertThat(second.spec().shutdown()).isEqualTo(
						new ShutdownTimeouts(Duration.ofSeconds(3), Duration.ofSeconds(2), Duration.ofSeconds(4)));
				// restart: server, defaults, built-in per key
				assertThat(first.restart()).isEqualTo(new RestartPolicy(RestartPolicy.Mode.ALWAYS, 2,
						Duration.ofMinutes(1), Duration.ofMillis(100), Duration.ofSeconds(30)));
				assertThat(second.restart()).isEqualTo(new RestartPolicy(RestartPolicy.Mode.ON_FAILURE, 2,
						Duration.ofMinutes(1), Duration.ofMillis(500), Duration.ofSeconds(30)));
				assertThat(this.fixtures.alive()).contains(servers.get("a").pid());
				assertThat(servers.get("b").pid()).isNull();
			});
	}

	@Test
	void eachServerGetsItsOwnCopyOfTheDefaults() {
		this.runner.withPropertyValues(echo("a"))
			.withPropertyValues(echo("b"))
			.withPropertyValues("mcp.stdio.defaults.sandbox.read-only[0]=/usr", "mcp.stdio.defaults.start=lazy",
					"mcp.stdio.servers.a.sandbox.read-only[0]=/opt", "mcp.stdio.servers.a.sandbox.read-only[1]=/srv")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				McpStdioServers servers = context.getBean(McpStdioServers.class);
				assertThat(servers.get("a").definition().spec().sandbox().readOnly()).containsExactly(Path.of("/opt"),
						Path.of("/srv"));
				assertThat(servers.get("b").definition().spec().sandbox().readOnly()).containsExactly(Path.of("/usr"));
			});
	}

	@Test
	void builtInDefaultsAreTheContracts() {
		this.runner.withPropertyValues(echo("a"))
			.withPropertyValues("mcp.stdio.servers.a.enabled=false")
			.run((context) -> {
				McpStdioServerDefinition definition = context.getBean(McpStdioServers.class).get("a").definition();
				assertThat(definition.required()).isFalse();
				assertThat(definition.spec().startupTimeout()).isEqualTo(Duration.ofSeconds(30));
				assertThat(definition.spec().inheritEnv()).isFalse();
				assertThat(definition.spec().workingDirectory()).isNull();
				assertThat(definition.spec().maxMessageSize()).isEqualTo(16 * 1024 * 1024);
				assertThat(definition.spec().stderrTailLines()).isEqualTo(50);
				assertThat(definition.spec().shutdown()).isEqualTo(SpecDefaults.shutdown());
				assertThat(definition.spec().shutdown()).isEqualTo(
						new ShutdownTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(2), Duration.ofSeconds(2)));
				assertThat(definition.restart()).isEqualTo(new RestartPolicy(RestartPolicy.Mode.NEVER, 5,
						Duration.ofMinutes(1), Duration.ofMillis(500), Duration.ofSeconds(30)));
			});
	}

	@Test
	void startIdleTimeoutAndLimitsComeFromServerDefaultsAndBuiltIns() {
		String a = "mcp.stdio.servers.a.";
		this.runner.withPropertyValues(echo("a"))
			.withPropertyValues(echo("b"))
			.withPropertyValues(echo("c"))
			.withPropertyValues("mcp.stdio.resource-check-interval=2s", "mcp.stdio.defaults.start=lazy",
					"mcp.stdio.defaults.idle-timeout=5m", "mcp.stdio.defaults.max-memory=512MB", a + "start=eager",
					a + "idle-timeout=30s", a + "max-processes=64", "mcp.stdio.servers.c.start=EAGER",
					"mcp.stdio.servers.c.idle-timeout=", "mcp.stdio.servers.c.max-memory=")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				McpStdioServers servers = context.getBean(McpStdioServers.class);
				assertThat(servers.get("a").definition().demand())
					.isEqualTo(new Demand(StartMode.EAGER, Duration.ofSeconds(30)));
				assertThat(servers.get("a").definition().limits())
					.isEqualTo(new Limits(DataSize.ofMegabytes(512).toBytes(), 64, Duration.ofSeconds(2)));
				assertThat(servers.get("b").definition().demand())
					.isEqualTo(new Demand(StartMode.LAZY, Duration.ofMinutes(5)));
				assertThat(servers.get("a").state()).isEqualTo(ServerState.RUNNING);
				// lazy: no process until its first message
				assertThat(servers.get("b").state()).isEqualTo(ServerState.IDLE);
				assertThat(servers.get("b").process()).isNull();
				assertThat(servers.get("b").treeStats().liveProcesses()).isZero();
				assertThat(servers.get("c").state()).isEqualTo(ServerState.RUNNING);
			});
		this.runner.withPropertyValues(echo("d")).run((context) -> {
			McpStdioServerDefinition definition = context.getBean(McpStdioServers.class).get("d").definition();
			assertThat(definition.demand()).isEqualTo(new Demand(StartMode.EAGER, null));
			assertThat(definition.limits()).isEqualTo(new Limits(null, null, Duration.ofSeconds(5)));
			assertThat(definition.limits().checkInterval()).isEqualTo(Duration.ofSeconds(5));
		});
	}

	@Test
	void badIdleTimeoutAndLimitsAreReportedTogether() {
		this.runner.withPropertyValues(echo("a"))
			.withPropertyValues("mcp.stdio.resource-check-interval=0s", "mcp.stdio.servers.a.idle-timeout=-1s",
					"mcp.stdio.servers.a.max-memory=0B", "mcp.stdio.defaults.max-processes=0")
			.run((context) -> {
				FailureAnalysis analysis = analyze(context);
				assertThat(analysis.getDescription())
					.contains("Property: mcp.stdio.resource-check-interval", "Problem: must be positive, was PT0S")
					.contains("Property: mcp.stdio.servers.a.idle-timeout", "must be positive, was PT-1S")
					.contains("Property: mcp.stdio.servers.a.max-memory", "must be positive, was 0B")
					.contains("Property: mcp.stdio.defaults.max-processes", "must be at least 1, was 0");
				assertThat(this.fixtures.alive()).isEmpty();
			});
	}

	@Test
	void unknownStartModeNamesTheProperty() {
		this.runner.withPropertyValues(echo("a"))
			.withPropertyValues("mcp.stdio.servers.a.start=sometimes")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).hasStackTraceContaining("mcp.stdio.servers.a.start")
					.hasStackTraceContaining("sometimes");
				assertThat(this.fixtures.alive()).isEmpty();
			});
	}

	@Test
	void serversFileOnTheClasspathAddsServers() {
		this.runner
			.withPropertyValues("mcp.stdio.servers-configuration=classpath:mcp-stdio/servers-classpath.json",
					"mcp.stdio.defaults.working-directory=" + Path.of(Fixtures.script("echo.sh")).getParent())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				McpStdioServer server = context.getBean(McpStdioServers.class).get("from-classpath");
				assertThat(context.getBean("mcpStdioServer.from-classpath")).isSameAs(server);
				assertThat(server.definition().spec().command()).isEqualTo("sh");
				assertThat(server.definition().spec().args()).containsExactly("echo.sh");
				assertThat(server.definition().spec().env()).containsEntry("LOG_LEVEL", "debug");
				assertThat(server.state()).isEqualTo(ServerState.RUNNING);
				assertThat(server.isInitialized()).isTrue();
				assertThat(Fixtures.alive(CLASSPATH_MARKER)).contains(server.pid());
			});
	}

	@Test
	void serversFileOnTheFileSystemAddsServersNextToTheProperties() throws IOException {
		Path file = this.temp.resolve("mcp.json");
		Files.writeString(file, """
				{"mcpServers": {"from-file": {"command": "sh", "args": ["%s"], "env": {"%s": "%s"}}}}
				""".formatted(Fixtures.script("echo.sh"), Fixtures.MARKER, this.fixtures.id()));
		this.runner.withPropertyValues("mcp.stdio.servers-configuration=file:" + file)
			.withPropertyValues(echo("from-properties"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				McpStdioServers servers = context.getBean(McpStdioServers.class);
				assertThat(servers.list()).extracting(McpStdioServer::name)
					.containsExactly("from-properties", "from-file");
				assertThat(servers.get("from-file").state()).isEqualTo(ServerState.RUNNING);
				assertThat(this.fixtures.alive()).contains(servers.get("from-file").pid(),
						servers.get("from-properties").pid());
			});
	}

	@Test
	void missingCommand() {
		this.runner.withPropertyValues(marker("a"), "mcp.stdio.servers.a.args=x")
			.run((context) -> assertFailure(context, "a", "mcp.stdio.servers.a.command", "no command is set",
					"set the executable to run"));
	}

	@Test
	void missingCommandInTheServersFile() throws IOException {
		Path file = this.temp.resolve("mcp.json");
		Files.writeString(file, "{\"mcpServers\": {\"nocmd\": {\"args\": [\"x\"], \"env\": {\"%s\": \"%s\"}}}}"
			.formatted(Fixtures.MARKER, this.fixtures.id()));
		this.runner.withPropertyValues("mcp.stdio.servers-configuration=file:" + file)
			.run((context) -> assertFailure(context, "nocmd", "mcp.stdio.servers.nocmd.command",
					"no command is set (in file:" + file + " mcpServers.nocmd)", "set the executable to run"));
	}

	@Test
	void commandNotFound() {
		this.runner.withPropertyValues(marker("a"), "mcp.stdio.servers.a.command=no-such-command-mcp-stdio-test")
			.run((context) -> assertFailure(context, "a", "mcp.stdio.servers.a.command",
					"no-such-command-mcp-stdio-test",
					"install it, use its absolute path, or add its directory to PATH"));
	}

	@Test
	void commandNotExecutable() throws IOException {
		Path script = Files.writeString(this.temp.resolve("not-executable.sh"), "echo hi\n");
		assertThat(script.toFile().setExecutable(false, false)).isTrue();
		this.runner.withPropertyValues(marker("a"), "mcp.stdio.servers.a.command=" + script)
			.run((context) -> assertFailure(context, "a", "mcp.stdio.servers.a.command", script.toString(),
					"install it, use its absolute path, or add its directory to PATH"));
	}

	@Test
	void missingWorkingDirectory() {
		Path missing = this.temp.resolve("missing");
		this.runner.withPropertyValues(echo("a"))
			.withPropertyValues("mcp.stdio.servers.a.working-directory=" + missing)
			.run((context) -> assertFailure(context, "a", "mcp.stdio.servers.a.working-directory",
					"the directory " + missing + " does not exist", "create it or point working-directory"));
	}

	@Test
	void zeroTimeout() {
		this.runner.withPropertyValues(echo("a"))
			.withPropertyValues("mcp.stdio.servers.a.startup-timeout=0s")
			.run((context) -> assertFailure(context, "a", "mcp.stdio.servers.a.startup-timeout",
					"must be positive, was PT0S", "set a positive duration"));
	}

	@Test
	void negativeShutdownTimeout() {
		this.runner.withPropertyValues(echo("a"))
			.withPropertyValues("mcp.stdio.servers.a.shutdown.terminate-timeout=-1s")
			.run((context) -> assertFailure(context, "a", "mcp.stdio.servers.a.shutdown.terminate-timeout",
					"must be positive, was PT-1S", "set a positive duration"));
	}

	@Test
	void inheritedBadTimeoutNamesTheDefaultsProperty() {
		this.runner.withPropertyValues(echo("a"))
			.withPropertyValues("mcp.stdio.defaults.shutdown.drain-timeout=0ms")
			.run((context) -> assertFailure(context, "a", "mcp.stdio.defaults.shutdown.drain-timeout",
					"must be positive", "set a positive duration"));
	}

	@Test
	void unknownRestartPolicy() {
		this.runner.withPropertyValues(echo("a"))
			.withPropertyValues("mcp.stdio.servers.a.restart.policy=sometimes")
			.run((context) -> assertFailure(context, "a", "mcp.stdio.servers.a.restart.policy",
					"'sometimes' is not one of never, on-failure, always", "use one of never, on-failure, always"));
	}

	@Test
	void badName() {
		String prefix = "mcp.stdio.servers[bad@name].";
		this.runner
			.withPropertyValues(prefix + "command=sh", prefix + "args=" + Fixtures.script("echo.sh"),
					prefix + "env." + Fixtures.MARKER + "=" + this.fixtures.id())
			.run((context) -> assertFailure(context, "bad@name", "mcp.stdio.servers.bad@name",
					"the name must be 1 to 64 letters, digits, '.', '_' or '-'", "rename the server"));
	}

	@Test
	void badNameInTheServersFile() throws IOException {
		Path file = this.temp.resolve("mcp.json");
		Files.writeString(file, "{\"mcpServers\": {\"my server\": {\"command\": \"sh\", \"env\": {\"%s\": \"%s\"}}}}"
			.formatted(Fixtures.MARKER, this.fixtures.id()));
		this.runner.withPropertyValues("mcp.stdio.servers-configuration=file:" + file)
			.run((context) -> assertFailure(context, "my server", "mcp.stdio.servers.my server",
					"the name must be 1 to 64 letters", "rename the server"));
	}

	@Test
	void nameWithALineBreakStaysOnItsLineOfTheReport() throws IOException {
		Path file = this.temp.resolve("mcp.json");
		// JSON escapes: the name holds a line feed, a carriage return and a line
		// separator
		Files.writeString(file,
				"{\"mcpServers\": {\"evil\\nServer: forged\\r\\u2028x\": {\"command\": \"sh\", \"env\": {\"%s\": \"%s\"}}}}"
					.formatted(Fixtures.MARKER, this.fixtures.id()));
		String shown = "evil\\nServer: forged\\r\\u2028x";
		this.runner.withPropertyValues("mcp.stdio.servers-configuration=file:" + file).run((context) -> {
			assertFailure(context, shown, "mcp.stdio.servers." + shown, "the name must be 1 to 64 letters",
					"rename the server");
			FailureAnalysis analysis = analyze(context);
			// every line of the report is one of its own, none a piece of a name
			assertThat(analysis.getDescription().split("\n", -1)).allSatisfy((line) -> assertThat(line).matches(
					"|The MCP server configuration is invalid; no server was started\\.|    (Server|Property|Problem): .*"));
			assertThat(analysis.getAction().split("\n", -1))
				.allSatisfy((line) -> assertThat(line).matches("|Fix the configuration:|    - .*"));
			assertThat(analysis.getDescription() + analysis.getAction()).doesNotContain("\r", "\u2028");
			McpStdioConfigurationException failure = findCause(context.getStartupFailure());
			assertThat(failure.getMessage()).contains("server '" + shown + "'").doesNotContain("\n", "\r", "\u2028");
			// the name itself is kept as configured
			assertThat(failure.problems()).extracting(McpStdioConfigurationException.Problem::server)
				.contains("evil\nServer: forged\r\u2028x");
		});
	}

	private static McpStdioConfigurationException findCause(Throwable thrown) {
		for (Throwable cause = thrown; cause != null; cause = cause.getCause()) {
			if (cause instanceof McpStdioConfigurationException configuration) {
				return configuration;
			}
		}
		throw new AssertionError("no McpStdioConfigurationException in " + thrown);
	}

	@Test
	void missingServersFile() {
		Path missing = this.temp.resolve("missing.json");
		this.runner.withPropertyValues(echo("a"))
			.withPropertyValues("mcp.stdio.servers-configuration=file:" + missing)
			.run((context) -> assertFailure(context, "(servers file)", "mcp.stdio.servers-configuration",
					"the file file:" + missing + " does not exist", "point it at an existing mcpServers JSON file"));
	}

	@Test
	void unreadableServersFile() throws IOException {
		// a directory exists but cannot be read as a file (permissions do not stop root)
		Path directory = Files.createDirectory(this.temp.resolve("a-directory.json"));
		this.runner.withPropertyValues(echo("a"))
			.withPropertyValues("mcp.stdio.servers-configuration=file:" + directory)
			.run((context) -> assertFailure(context, "(servers file)", "mcp.stdio.servers-configuration",
					"the file file:" + directory + " cannot be read", "make it a readable mcpServers JSON file"));
	}

	@Test
	void malformedServersFile() throws IOException {
		Path file = Files.writeString(this.temp.resolve("mcp.json"), "{\"mcpServers\": {\"a\": {\"command\": ");
		this.runner.withPropertyValues(echo("b"))
			.withPropertyValues("mcp.stdio.servers-configuration=file:" + file)
			.run((context) -> assertFailure(context, "(servers file)", "mcp.stdio.servers-configuration",
					"is unusable: it is not valid JSON", "fix the file; the format is {\"mcpServers\""));
	}

	@Test
	void serversFileWithoutMcpServers() throws IOException {
		Path file = Files.writeString(this.temp.resolve("mcp.json"), "{\"servers\": {}}");
		this.runner.withPropertyValues(echo("b"))
			.withPropertyValues("mcp.stdio.servers-configuration=file:" + file)
			.run((context) -> assertFailure(context, "(servers file)", "mcp.stdio.servers-configuration",
					"it has no \"mcpServers\" object at the top level", "fix the file"));
	}

	@Test
	void nameInBothPlaces() throws IOException {
		Path file = this.temp.resolve("mcp.json");
		Files.writeString(file,
				"{\"mcpServers\": {\"a\": {\"command\": \"sh\", \"args\": [\"%s\"], \"env\": {\"%s\": \"%s\"}}}}"
					.formatted(Fixtures.script("echo.sh"), Fixtures.MARKER, this.fixtures.id()));
		this.runner.withPropertyValues(echo("a"))
			.withPropertyValues("mcp.stdio.servers-configuration=file:" + file)
			.run((context) -> assertFailure(context, "a", "mcp.stdio.servers.a",
					"the server is configured both here and in file:" + file, "remove it from one of the two places"));
	}

	@Test
	void everyErrorIsReportedAtOnceAndNoValidServerStarts() {
		this.runner.withPropertyValues(echo("good"))
			.withPropertyValues(marker("a"), "mcp.stdio.servers.a.args=x")
			.withPropertyValues(echo("b"))
			.withPropertyValues("mcp.stdio.servers.b.restart.policy=sometimes")
			.run((context) -> {
				FailureAnalysis analysis = analyze(context);
				assertThat(analysis.getDescription()).contains("mcp.stdio.servers.a.command")
					.contains("mcp.stdio.servers.b.restart.policy");
				assertThat(analysis.getAction()).contains("mcp.stdio.servers.a.command")
					.contains("mcp.stdio.servers.b.restart.policy");
				this.fixtures.assertNeverStarted();
			});
	}

	@Test
	void failureAnalyzerIsRegisteredAndPrintsItsReport(CapturedOutput output) {
		SpringApplication application = new SpringApplication(OnlyMcpStdio.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.setRegisterShutdownHook(false);
		List<String> args = new ArrayList<>(List.of(echo("a")));
		args.add("mcp.stdio.servers.a.restart.policy=sometimes");
		application.setDefaultProperties(args.stream()
			.collect(java.util.stream.Collectors.toMap((arg) -> arg.substring(0, arg.indexOf('=')),
					(arg) -> (Object) arg.substring(arg.indexOf('=') + 1))));
		assertThatExceptionOfType(McpStdioConfigurationException.class).isThrownBy(application::run)
			.withMessageContaining("mcp.stdio.servers.a.restart.policy");
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("The MCP server configuration is invalid; no server was started.")
			.contains("Server: a")
			.contains("Property: mcp.stdio.servers.a.restart.policy")
			.contains("Problem: 'sometimes' is not one of never, on-failure, always")
			.contains("mcp.stdio.servers.a.restart.policy: use one of never, on-failure, always");
		this.fixtures.assertNeverStarted();
	}

	private void assertFailure(AssertableApplicationContext context, String server, String property, String problem,
			String action) {
		ConfigurationTestSupport.assertFailure(context, server, property, problem, action);
		this.fixtures.assertNeverStarted();
	}

	private FailureAnalysis analyze(AssertableApplicationContext context) {
		return ConfigurationTestSupport.analyze(context);
	}

	private String[] echo(String name) {
		return ConfigurationTestSupport.echo(name, this.fixtures);
	}

	private String marker(String name) {
		return "mcp.stdio.servers." + name + ".env." + Fixtures.MARKER + "=" + this.fixtures.id();
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(McpStdioAutoConfiguration.class)
	static class OnlyMcpStdio {

	}

}

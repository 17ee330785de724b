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
import java.util.List;

import ch.qos.logback.classic.Level;
import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.containment.Containment.SandboxSettings.Network;
import dev.mcpstdio.core.containment.Containment.SandboxSettings;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.LogCapture;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the {@code sandbox.*} settings, their start-up errors, and a sandboxed server
 * where {@code bwrap} is missing: it never runs unsandboxed, and says what to install.
 * Needs no bubblewrap: nothing here is started in a sandbox.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class SandboxConfigurationTests {

	private final Fixtures fixtures;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(McpStdioAutoConfiguration.class));

	@TempDir
	Path temp;

	SandboxConfigurationTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void settingsComeFromTheServerThenDefaultsThenBuiltIns() throws IOException {
		Path data = Files.createDirectories(this.temp.resolve("data"));
		Path config = Files.createDirectories(this.temp.resolve("config"));
		this.runner.withPropertyValues(ConfigurationTestSupport.echo("a", this.fixtures))
			.withPropertyValues(ConfigurationTestSupport.echo("b", this.fixtures))
			.withPropertyValues(ConfigurationTestSupport.echo("c", this.fixtures))
			.withPropertyValues("mcp.stdio.defaults.sandbox.enabled=true",
					"mcp.stdio.defaults.sandbox.read-only[0]=" + config, "mcp.stdio.servers.a.sandbox.network=host",
					"mcp.stdio.servers.a.sandbox.read-write[0]=" + data, "mcp.stdio.servers.c.sandbox.enabled=false",
					// only a sandboxed server's paths must exist
					"mcp.stdio.servers.c.sandbox.read-write[0]=/no/such/path",
					// none is started in a sandbox here
					"mcp.stdio.servers.a.enabled=false", "mcp.stdio.servers.b.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				McpStdioServers servers = context.getBean(McpStdioServers.class);
				assertThat(servers.get("a").definition().spec().sandbox())
					.isEqualTo(new SandboxSettings(true, Network.HOST, List.of(data), List.of(config)));
				assertThat(servers.get("b").definition().spec().sandbox())
					.isEqualTo(new SandboxSettings(true, Network.NONE, List.of(), List.of(config)));
				assertThat(servers.get("c").definition().spec().sandbox().enabled()).isFalse();
				assertThat(servers.get("c").state()).isEqualTo(ServerState.RUNNING);
				assertThat(SpecDefaults.sandbox())
					.isEqualTo(new SandboxSettings(false, Network.NONE, List.of(), List.of()));
			});
	}

	@Test
	void aPathThatDoesNotExistIsAnErrorNamingItsProperty() {
		this.runner.withPropertyValues(ConfigurationTestSupport.echo("box", this.fixtures))
			.withPropertyValues("mcp.stdio.servers.box.sandbox.enabled=true",
					"mcp.stdio.servers.box.sandbox.read-write[0]=" + this.temp,
					"mcp.stdio.servers.box.sandbox.read-write[1]=" + this.temp.resolve("missing"))
			.run((context) -> assertFailure(context, "box", "mcp.stdio.servers.box.sandbox.read-write[1]",
					"the path " + this.temp.resolve("missing") + " does not exist", "create it"));
	}

	@Test
	void aMissingPathInheritedFromDefaultsIsNamedThere() {
		this.runner.withPropertyValues(ConfigurationTestSupport.echo("box", this.fixtures))
			.withPropertyValues("mcp.stdio.defaults.sandbox.enabled=true",
					"mcp.stdio.defaults.sandbox.read-only[0]=" + this.temp.resolve("missing"))
			.run((context) -> assertFailure(context, "box", "mcp.stdio.defaults.sandbox.read-only[0]", "does not exist",
					"create it"));
	}

	@Test
	void aRelativePathIsAnError() {
		this.runner.withPropertyValues(ConfigurationTestSupport.echo("box", this.fixtures))
			.withPropertyValues("mcp.stdio.servers.box.sandbox.enabled=true",
					"mcp.stdio.servers.box.sandbox.read-write[0]=target")
			.run((context) -> assertFailure(context, "box", "mcp.stdio.servers.box.sandbox.read-write[0]",
					"the path target is not absolute", "write its absolute path"));
	}

	@Test
	void anUnknownNetworkIsAnError() {
		this.runner.withPropertyValues(ConfigurationTestSupport.echo("box", this.fixtures))
			.withPropertyValues("mcp.stdio.servers.box.sandbox.enabled=true",
					"mcp.stdio.servers.box.sandbox.network=bridge")
			.run((context) -> assertFailure(context, "box", "mcp.stdio.servers.box.sandbox.network",
					"'bridge' is not one of none, host", "use one of none, host"));
	}

	@Test
	void aContainerRunIsSandboxedByItsEngineNotByBubblewrap() {
		this.runner
			.withPropertyValues("mcp.stdio.servers.box.command=docker", "mcp.stdio.servers.box.args[0]=run",
					"mcp.stdio.servers.box.args[1]=-i", "mcp.stdio.servers.box.args[2]=image",
					"mcp.stdio.servers.box.sandbox.enabled=true")
			.run((context) -> assertFailure(context, "box", "mcp.stdio.servers.box.sandbox.enabled",
					"a docker run or podman run server runs in its container",
					"--read-only, --network none, --cap-drop ALL"));
	}

	@Test
	void withoutBwrapASandboxedServerNeverStartsAndSaysWhatToInstall() throws IOException {
		// a PATH that holds no bwrap; the command is found by its absolute path
		Path empty = Files.createDirectories(this.temp.resolve("no-bwrap"));
		String[] server = { "mcp.stdio.servers.box.command=/bin/sh",
				"mcp.stdio.servers.box.args[0]=" + Fixtures.script("echo.sh"),
				"mcp.stdio.servers.box.env." + Fixtures.MARKER + "=" + this.fixtures.id(),
				"mcp.stdio.servers.box.env.PATH=" + empty, "mcp.stdio.servers.box.sandbox.enabled=true" };
		String why = "Could not start MCP server 'box': its sandbox needs bubblewrap, and no directory of the "
				+ "server's PATH holds bwrap: install it (apt-get install bubblewrap, dnf install bubblewrap)";
		try (LogCapture log = LogCapture.of("dev.mcpstdio")) {
			this.runner.withPropertyValues(server).run((context) -> {
				assertThat(context).hasNotFailed();
				McpStdioServer box = context.getBean(McpStdioServers.class).get("box");
				assertThat(box.state()).isEqualTo(ServerState.FAILED);
				assertThat(box.pid()).isNull();
			});
			assertThat(log.messages(Level.ERROR))
				.anySatisfy((line) -> assertThat(line).startsWith("MCP server 'box' could not start and is FAILED")
					.contains(why)
					.contains("a sandboxed server never runs without its sandbox"));
		}
		this.runner.withPropertyValues(server)
			.withPropertyValues("mcp.stdio.servers.box.required=true")
			.run((context) -> {
				FailureAnalysis analysis = ConfigurationTestSupport.analyze(context);
				assertThat(analysis.getDescription())
					.startsWith("MCP server 'box' is required but could not start: " + why)
					.contains("The server is required");
			});
		this.fixtures.assertNeverStarted();
	}

	private void assertFailure(AssertableApplicationContext context, String server, String property, String problem,
			String action) {
		ConfigurationTestSupport.assertFailure(context, server, property, problem, action);
		this.fixtures.assertNeverStarted();
	}

}

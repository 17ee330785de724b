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
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import ch.qos.logback.classic.Level;
import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.containment.ContainerSettings;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.LogCapture;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the {@code container.*} settings and for the start-up errors of container
 * commands that cannot serve MCP over stdio: each names the server and the argument.
 * Needs no engine: the command is a script named {@code docker} that only says it ran.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class ContainerConfigurationTests {

	private final Fixtures fixtures;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(McpStdioAutoConfiguration.class));

	@TempDir
	Path temp;

	private Path docker;

	ContainerConfigurationTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@BeforeEach
	void fakeEngine() throws IOException {
		// never started in these tests: configuration errors come before any process
		this.docker = Files.writeString(this.temp.resolve("docker"), "#!/bin/sh\necho \"ran: $*\" >&2\nexit 3\n");
		Files.setPosixFilePermissions(this.docker, PosixFilePermissions.fromString("rwxr-xr-x"));
	}

	private String[] server(String name, String... args) {
		String prefix = "mcp.stdio.servers." + name + ".";
		List<String> properties = new ArrayList<>(List.of(prefix + "command=" + this.docker,
				prefix + "env." + Fixtures.MARKER + "=" + this.fixtures.id(), prefix + "enabled=true"));
		for (int i = 0; i < args.length; i++) {
			properties.add(prefix + "args[" + i + "]=" + args[i]);
		}
		return properties.toArray(String[]::new);
	}

	@Test
	void optionsThatGiveTheContainerTheHostAreWarnedAboutOnceEachAtStartUp() {
		try (LogCapture log = LogCapture.of(McpStdioServersRegistrar.class.getName())) {
			this.runner
				.withPropertyValues(server("box", "run", "-i", "--rm", "--privileged", "--pid=host", "--network",
						"host", "-v", "/:/host:ro", "--mount", "type=bind,source=/,target=/root-fs", "image"))
				.withPropertyValues(server("tame", "run", "-i", "--rm", "--network=bridge", "-v", "/tmp:/tmp", "image"))
				.run((context) -> assertThat(context).hasNotFailed());
			assertThat(log.messages(Level.WARN).stream().filter((line) -> line.contains("runs its container with")))
				.containsExactly(
						"MCP server 'box' runs its container with --privileged, which gives it every capability and "
								+ "device of the host; mcp-stdio runs it as configured, but make sure the server needs it",
						"MCP server 'box' runs its container with --pid=host, which lets it see and signal every "
								+ "process of the host; mcp-stdio runs it as configured, but make sure the server needs it",
						"MCP server 'box' runs its container with --network=host, which puts it on the host's network, "
								+ "its loopback services included; mcp-stdio runs it as configured, but make sure the "
								+ "server needs it",
						"MCP server 'box' runs its container with -v /:/host:ro, which mounts the host's whole file "
								+ "system into it; mcp-stdio runs it as configured, but make sure the server needs it",
						"MCP server 'box' runs its container with --mount type=bind,source=/,target=/root-fs, which "
								+ "mounts the host's whole file system into it; mcp-stdio runs it as configured, but "
								+ "make sure the server needs it");
		}
	}

	@Test
	void aTtyIsRefusedNamingTheArgument() {
		this.runner.withPropertyValues(server("box", "run", "-i", "-t", "--rm", "image"))
			.run((context) -> assertFailure(context, "box", "mcp.stdio.servers.box.args[2]", "-t (--tty)",
					"container.enabled=false"));
	}

	@Test
	void combinedShortFlagsAreRead() {
		this.runner.withPropertyValues(server("box", "--context", "remote", "run", "--rm", "-it", "image"))
			.run((context) -> assertFailure(context, "box", "mcp.stdio.servers.box.args[4]", "-t (--tty)",
					"change the container's arguments"));
	}

	@Test
	void detachIsRefusedNamingTheArgument() {
		this.runner.withPropertyValues(server("box", "run", "-i", "--detach", "image"))
			.run((context) -> assertFailure(context, "box", "mcp.stdio.servers.box.args[2]", "-d (--detach)",
					"change the container's arguments"));
	}

	@Test
	void aMissingInteractiveFlagIsRefused() {
		this.runner.withPropertyValues(server("box", "run", "--rm", "image"))
			.run((context) -> assertFailure(context, "box", "mcp.stdio.servers.box.args", "without -i",
					"change the container's arguments"));
	}

	@Test
	void ourLabelsAndMarkersAreReserved() {
		this.runner.withPropertyValues(server("box", "run", "-i", "-e", "MCP_STDIO_SERVER=other", "image"))
			.run((context) -> assertFailure(context, "box", "mcp.stdio.servers.box.args[2]", "MCP_STDIO_SERVER",
					"change the container's arguments"));
	}

	@Test
	void withContainersDisabledTheCommandRunsAsGiven() {
		this.runner.withPropertyValues(server("box", "run", "-t", "image"))
			.withPropertyValues("mcp.stdio.servers.box.container.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ContainerSettings settings = context.getBean(McpStdioServers.class)
					.get("box")
					.definition()
					.spec()
					.container();
				assertThat(settings.enabled()).isFalse();
			});
	}

	@Test
	void containerSettingsComeFromTheServerThenDefaultsThenBuiltIns() {
		this.runner.withPropertyValues(server("a", "run", "-i", "image"))
			.withPropertyValues(server("b", "run", "-i", "image"))
			.withPropertyValues("mcp.stdio.defaults.container.init=true",
					"mcp.stdio.defaults.container.engine-timeout=20s", "mcp.stdio.servers.a.container.init=false",
					"mcp.stdio.servers.a.container.engine-command=" + this.docker)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				McpStdioServers servers = context.getBean(McpStdioServers.class);
				assertThat(servers.get("a").definition().spec().container())
					.isEqualTo(new ContainerSettings(true, this.docker.toString(), false, Duration.ofSeconds(20)));
				assertThat(servers.get("b").definition().spec().container())
					.isEqualTo(new ContainerSettings(true, null, true, Duration.ofSeconds(20)));
				assertThat(SpecDefaults.container())
					.isEqualTo(new ContainerSettings(true, null, false, Duration.ofSeconds(10)));
			});
	}

	@Test
	void anEngineCommandThatDoesNotExistIsAnError() {
		this.runner.withPropertyValues(server("box", "run", "-i", "image"))
			.withPropertyValues("mcp.stdio.defaults.container.engine-command=no-such-engine-mcp-stdio-test")
			.run((context) -> assertFailure(context, "box", "mcp.stdio.defaults.container.engine-command",
					"no-such-engine-mcp-stdio-test", "remove the property"));
	}

	@Test
	void aZeroEngineTimeoutIsAnError() {
		this.runner.withPropertyValues(server("box", "run", "-i", "image"))
			.withPropertyValues("mcp.stdio.servers.box.container.engine-timeout=0s")
			.run((context) -> assertFailure(context, "box", "mcp.stdio.servers.box.container.engine-timeout",
					"must be positive", "set a positive duration"));
	}

	private void assertFailure(AssertableApplicationContext context, String server, String property, String problem,
			String action) {
		ConfigurationTestSupport.assertFailure(context, server, property, problem, action);
		assertThat(this.fixtures.alive()).isEmpty();
	}

}

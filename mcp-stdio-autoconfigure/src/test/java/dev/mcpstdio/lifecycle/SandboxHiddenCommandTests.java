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

package dev.mcpstdio.lifecycle;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.test.Sandboxes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.util.FileSystemUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for a sandboxed server whose command or interpreter lives where the sandbox hides
 * it, as a new user's pyenv does: its failure names the directory and the setting that
 * lists it, where the same server without the sandbox runs.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class SandboxHiddenCommandTests {

	private final Fixtures fixtures;

	/** A home directory with a pyenv-like shim tree, outside /tmp. */
	private Path home;

	SandboxHiddenCommandTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@BeforeEach
	void home() throws IOException {
		Sandboxes.assume();
		Path work = Sandboxes.readable(Files.createTempDirectory(Path.of("target").toAbsolutePath(), "hidden-"));
		this.home = Sandboxes.readable(Files.createDirectories(work.resolve("home")));
		// as pyenv's shims do: the shim runs pyenv's libexec by its absolute path
		Path pyenv = Sandboxes.readable(Files.createDirectories(this.home.resolve(".pyenv")));
		executable(Sandboxes.readable(Files.createDirectories(pyenv.resolve("shims"))).resolve("python3"),
				"#!/bin/sh\nprogram=\"${0##*/}\"\nexec \"" + pyenv.resolve("libexec").resolve("pyenv")
						+ "\" exec \"$program\" \"$@\"\n");
		executable(Sandboxes.readable(Files.createDirectories(pyenv.resolve("libexec"))).resolve("pyenv"),
				"#!/bin/sh\nexec /bin/sh " + Fixtures.script("echo.sh") + "\n");
		// a script whose interpreter is hidden, by its path and through env
		Path bin = Sandboxes.readable(Files.createDirectories(this.home.resolve("bin")));
		Path interpreters = Sandboxes.readable(Files.createDirectories(this.home.resolve(".interpreters")));
		executable(interpreters.resolve("fakepython"), "#!/bin/sh\nexec /bin/sh \"$@\"\n");
		executable(bin.resolve("direct.sh"), "#!" + interpreters.resolve("fakepython") + "\n");
		executable(bin.resolve("through-env.sh"), "#!/usr/bin/env fakepython\n");
	}

	@AfterEach
	void removeHome() throws IOException {
		FileSystemUtils.deleteRecursively(this.home.getParent());
	}

	@Test
	void aHiddenCommandOrInterpreterFailsNamingTheDirectoryAndTheSetting() {
		Path shims = this.home.resolve(".pyenv").resolve("shims");
		String path = shims + ":" + this.home.resolve(".interpreters") + ":/usr/bin:/bin";
		List<String> properties = new ArrayList<>();
		for (String name : List.of("shim", "open", "direct", "env")) {
			String prefix = "mcp.stdio.servers." + name + ".";
			String command = switch (name) {
				case "direct" -> this.home.resolve("bin").resolve("direct.sh").toString();
				case "env" -> this.home.resolve("bin").resolve("through-env.sh").toString();
				default -> "python3";
			};
			properties.addAll(List.of(prefix + "command=" + command, prefix + "env.PATH=" + path,
					prefix + "env.HOME=" + this.home, prefix + "env." + Fixtures.MARKER + "=" + this.fixtures.id(),
					prefix + "sandbox.enabled=" + !name.equals("open")));
		}
		ContainmentContexts.runner().withPropertyValues(properties.toArray(String[]::new)).run((context) -> {
			assertThat(context).hasNotFailed();
			McpStdioServers servers = context.getBean(McpStdioServers.class);
			// without the sandbox the shim runs the server
			assertThat(servers.get("open").state()).isEqualTo(ServerState.RUNNING);
			McpStdioServer shim = servers.get("shim");
			Await.within(Duration.ofSeconds(20)).until("the shim FAILED", () -> shim.state() == ServerState.FAILED);
			assertThat(shim.lastFailure()).contains("Hint: the server's stderr names "
					+ this.home.resolve(".pyenv/libexec/pyenv") + ", which the sandbox hides: list "
					+ this.home.resolve(".pyenv/libexec") + " in mcp.stdio.servers.shim.sandbox.read-only");
			McpStdioServer direct = servers.get("direct");
			assertThat(direct.state()).isEqualTo(ServerState.FAILED);
			assertThat(direct.lastFailure()).contains("Could not start MCP server 'direct': "
					+ this.home.resolve("bin/direct.sh") + "'s interpreter "
					+ this.home.resolve(".interpreters/fakepython") + " lies in " + this.home.resolve(".interpreters")
					+ ", which the sandbox hides: list it in mcp.stdio.servers.direct.sandbox.read-only");
			McpStdioServer env = servers.get("env");
			assertThat(env.state()).isEqualTo(ServerState.FAILED);
			assertThat(env.lastFailure()).contains("Could not start MCP server 'env': "
					+ this.home.resolve("bin/through-env.sh") + "'s interpreter fakepython ("
					+ this.home.resolve(".interpreters/fakepython") + ") lies in " + this.home.resolve(".interpreters")
					+ ", which the sandbox hides: list it in mcp.stdio.servers.env.sandbox.read-only");
		});
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	private static void executable(Path file, String content) throws IOException {
		Files.writeString(file, content);
		Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
	}

}

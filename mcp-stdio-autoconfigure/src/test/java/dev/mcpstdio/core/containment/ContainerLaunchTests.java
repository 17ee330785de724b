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

package dev.mcpstdio.core.containment;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.mcpstdio.core.StdioServerSpec;
import dev.mcpstdio.core.process.JvmOwner;
import dev.mcpstdio.core.process.ProcessMarkers;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the arguments {@link ContainerLaunch} gives a container run, without an
 * engine.
 *
 * @author mcp-stdio authors
 */
class ContainerLaunchTests {

	private final ContainerEngine engine = new ContainerEngine(List.of("docker"), Map.of(), Duration.ofSeconds(10));

	private static ContainerRun run(String... args) {
		ContainerRun run = ContainerRun.recognise("docker", List.of(args));
		assertThat(run).isNotNull();
		return run;
	}

	@Test
	void labelsMarkersAndACidfileInAPrivateDirectoryGoRightAfterRun() throws Exception {
		JvmOwner owner = JvmOwner.current();
		try (ContainerLaunch launch = ContainerLaunch.prepare(run("--context", "x", "run", "-i", "--rm", "img", "a"),
				"files", "42-7", this.engine, ContainerSettings.DEFAULTS, null)) {
			List<String> args = launch.args();
			int cidfile = args.indexOf("--cidfile");
			assertThat(cidfile).isPositive();
			Path file = Path.of(args.get(cidfile + 1));
			assertThat(file).doesNotExist();
			assertThat(file.getParent()).isDirectory();
			assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())))
				.isEqualTo("rwx------");
			assertThat(args).containsExactly("--context", "x", "run", "--label", "dev.mcpstdio.server=files", "--label",
					"dev.mcpstdio.instance=42-7", "--label", "dev.mcpstdio.owner=" + owner.id(), "--label",
					"dev.mcpstdio.owner-host=" + owner.host(), "--cidfile", file.toString(), "-e",
					ProcessMarkers.SERVER + "=files", "-e", ProcessMarkers.OWNER_PID + "=" + ProcessMarkers.CURRENT_PID,
					"-e", ProcessMarkers.INSTANCE + "=42-7", "-i", "--rm", "img", "a");
			launch.close();
			assertThat(file.getParent()).doesNotExist();
		}
	}

	@Test
	void theUsersCidfileIsUsedInsteadOfOurs() {
		try (ContainerLaunch launch = ContainerLaunch.prepare(run("run", "-i", "--cidfile", "my.cid", "img"), "files",
				"42-8", this.engine, ContainerSettings.DEFAULTS, Path.of("/srv/files"))) {
			assertThat(launch.args()).containsOnlyOnce("--cidfile").contains("my.cid");
		}
	}

	@Test
	void initIsAddedWhenAskedForAndNotGivenAlready() {
		ContainerSettings init = ContainerSettings.DEFAULTS.withInit(true);
		try (ContainerLaunch launch = ContainerLaunch.prepare(run("run", "-i", "img"), "s", "1-1", this.engine, init,
				null)) {
			assertThat(launch.args()).containsOnlyOnce("--init");
			assertThat(launch.args().indexOf("--init")).isLessThan(launch.args().indexOf("img"));
		}
		try (ContainerLaunch launch = ContainerLaunch.prepare(run("run", "-i", "--init", "img"), "s", "1-2",
				this.engine, init, null)) {
			assertThat(launch.args()).containsOnlyOnce("--init");
		}
		try (ContainerLaunch launch = ContainerLaunch.prepare(run("run", "-i", "img"), "s", "1-3", this.engine,
				ContainerSettings.DEFAULTS, null)) {
			assertThat(launch.args()).doesNotContain("--init");
		}
	}

	@Test
	void theDisplayedCommandStaysTheUsers() {
		StdioServerSpec spec = StdioServerSpec.of("files", "docker", "run", "-i", "--rm", "img");
		ContainerRun run = ContainerRun.recognise(spec.command(), spec.args());
		try (ContainerLaunch launch = ContainerLaunch.prepare(run, spec.name(), "1-4", this.engine,
				ContainerSettings.DEFAULTS, null)) {
			assertThat(launch.args()).hasSizeGreaterThan(spec.args().size());
			assertThat(spec.commandLine()).isEqualTo("docker run -i --rm img");
		}
	}

	@Test
	void theEngineGetsTheGlobalOptionsAndNotOurMarkers() {
		ContainerRun run = run("-H", "unix:///x.sock", "run", "-i", "img");
		ContainerEngine engine = ContainerEngine.of(run, "/usr/bin/docker", Map.of("PATH", "/usr/bin",
				ProcessMarkers.SERVER, "s", ProcessMarkers.OWNER_PID, "1", ProcessMarkers.INSTANCE, "1-1"),
				ContainerSettings.DEFAULTS);
		assertThat(engine.prefix()).containsExactly("/usr/bin/docker", "-H", "unix:///x.sock");
		assertThat(engine.environment()).containsOnlyKeys("PATH");
		assertThat(ContainerEngine
			.of(run, "/usr/bin/docker", Map.of(), ContainerSettings.DEFAULTS.withEngineCommand("/opt/docker"))
			.prefix()).containsExactly("/opt/docker", "-H", "unix:///x.sock");
	}

}

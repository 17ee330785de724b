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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.core.tree.ProcessMarkers;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the arguments {@link Container} gives a container run, without an engine.
 *
 * @author mcp-stdio authors
 */
class ContainerTests {

	private static Container container(String instance, ContainerSettings settings, @Nullable Path directory,
			String... args) {
		Containment.Start start = ContainmentAccess.start("files", settings, directory, "docker", args);
		ContainerRun run = ContainerRun.recognise("docker", List.of(args));
		assertThat(run).isNotNull();
		return new Container(ContainmentAccess.host(), start, run, instance, ProcessMarkers.Owner.current());
	}

	/** The arguments the container's command runs with: those after the executable. */
	private static List<String> args(Container container) {
		List<String> command = container.wrap(List.of("docker"));
		return command.subList(1, command.size());
	}

	@Test
	void labelsMarkersAndACidfileInAPrivateDirectoryGoRightAfterRun() throws Exception {
		ProcessMarkers.Owner owner = ProcessMarkers.Owner.current();
		Container container = container("42-7", SpecDefaults.container(), null, "--context", "x", "run", "-i", "--rm",
				"img", "a");
		List<String> args = args(container);
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
		List<String> wrapped = new ArrayList<>(List.of("/usr/bin/docker"));
		wrapped.addAll(args);
		assertThat(container.wrap(List.of("/usr/bin/docker", "--context", "x", "run", "-i", "--rm", "img", "a")))
			.isEqualTo(wrapped);
		container.release();
		assertThat(file.getParent()).doesNotExist();
	}

	@Test
	void theUsersCidfileIsUsedInsteadOfOurs() {
		Container container = container("42-8", SpecDefaults.container(), Path.of("/srv/files"), "run", "-i",
				"--cidfile", "my.cid", "img");
		assertThat(args(container)).containsOnlyOnce("--cidfile").contains("my.cid");
	}

	@Test
	void initIsAddedWhenAskedForAndNotGivenAlready() {
		ContainerSettings init = new ContainerSettings(true, null, true, SpecDefaults.container().engineTimeout());
		Container asked = container("1-1", init, null, "run", "-i", "img");
		assertThat(args(asked)).containsOnlyOnce("--init");
		assertThat(args(asked).indexOf("--init")).isLessThan(args(asked).indexOf("img"));
		asked.release();
		Container given = container("1-2", init, null, "run", "-i", "--init", "img");
		assertThat(args(given)).containsOnlyOnce("--init");
		given.release();
		Container plain = container("1-3", SpecDefaults.container(), null, "run", "-i", "img");
		assertThat(args(plain)).doesNotContain("--init");
		plain.release();
	}

	@Test
	void theDisplayedCommandStaysTheUsers() {
		StdioServerSpec spec = SpecDefaults.of("files", "docker", "run", "-i", "--rm", "img");
		Container container = container("1-4", SpecDefaults.container(), null, spec.args().toArray(String[]::new));
		assertThat(args(container)).hasSizeGreaterThan(spec.args().size());
		assertThat(spec.commandLine()).isEqualTo("docker run -i --rm img");
		container.release();
	}

	@Test
	void theEngineGetsTheGlobalOptionsAndNotOurMarkers() {
		ContainerRun run = ContainerRun.recognise("docker", List.of("-H", "unix:///x.sock", "run", "-i", "img"));
		assertThat(run).isNotNull();
		ContainerEngine engine = ContainerEngine.of(run, "/usr/bin/docker", Map.of("PATH", "/usr/bin",
				ProcessMarkers.SERVER, "s", ProcessMarkers.OWNER_PID, "1", ProcessMarkers.INSTANCE, "1-1"),
				SpecDefaults.container());
		assertThat(engine.prefix()).containsExactly("/usr/bin/docker", "-H", "unix:///x.sock");
		assertThat(engine.environment()).containsOnlyKeys("PATH");
		assertThat(ContainerEngine
			.of(run, "/usr/bin/docker", Map.of(),
					new ContainerSettings(true, "/opt/docker", false, SpecDefaults.container().engineTimeout()))
			.prefix()).containsExactly("/opt/docker", "-H", "unix:///x.sock");
	}

}

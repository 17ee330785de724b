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

import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.mcpstdio.core.tree.ProcessMarkers;
import dev.mcpstdio.core.tree.ProcessTree;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for reading what the engines print.
 *
 * @author mcp-stdio authors
 */
class ContainerOutputTests {

	@Test
	void statsOfDockerAndPodmanAreRead() {
		assertThat(EngineStats.parse("3|1.5MiB / 7.6GiB")).isEqualTo(new ProcessTree.Stats(3, 1572864));
		assertThat(EngineStats.parse("2|1.5MB / 8.2GB")).isEqualTo(new ProcessTree.Stats(2, 1500000));
		assertThat(EngineStats.parse("1|512KiB / 1GiB")).isEqualTo(new ProcessTree.Stats(1, 524288));
		assertThat(EngineStats.parse("1|600kB / 1GB")).isEqualTo(new ProcessTree.Stats(1, 600000));
		assertThat(EngineStats.parse("--|0B / 0B")).isEqualTo(new ProcessTree.Stats(0, 0));
		assertThat(EngineStats.parse("")).isEqualTo(new ProcessTree.Stats(0, 0));
	}

	@Test
	void inspectLinesAreRead() {
		OwnedContainer info = OwnedContainer.parse("abc123|files|42-1|42@777|host-a|true");
		assertThat(info).isNotNull();
		assertThat(info.id()).isEqualTo("abc123");
		assertThat(info.server()).isEqualTo("files");
		assertThat(info.instance()).isEqualTo("42-1");
		assertThat(info.running()).isTrue();
		assertThat(info.owner()).isNotNull();
		assertThat(info.owner().pid()).isEqualTo(42);
		assertThat(info.owner().start()).isEqualTo("777");
		assertThat(info.owner().host()).isEqualTo("host-a");
		OwnedContainer foreign = OwnedContainer.parse("def|<no value>|<no value>|junk|<no value>|false");
		assertThat(foreign).isNotNull();
		assertThat(foreign.owner()).isNull();
		assertThat(foreign.running()).isFalse();
		assertThat(OwnedContainer.parse("Error: no such object")).isNull();
	}

	@Test
	void orphansAreTheContainersOfDeadOwnersOfThisHostOnly() {
		ProcessMarkers.Owner me = ProcessMarkers.Owner.current();
		ProcessMarkers.Owner dead = new ProcessMarkers.Owner(11, "1", me.host());
		ProcessMarkers.Owner alive = new ProcessMarkers.Owner(12, "1", me.host());
		ProcessMarkers.Owner remote = new ProcessMarkers.Owner(13, "1", "elsewhere-" + me.host());
		List<OwnedContainer> containers = List.of(new OwnedContainer("a", "s", "i", dead, true),
				new OwnedContainer("b", "s", "i", alive, true), new OwnedContainer("c", "s", "i", remote, false),
				new OwnedContainer("d", "s", "i", me, true), new OwnedContainer("e", "s", "i", null, true));
		assertThat(Leftovers.orphans(containers, (owner) -> owner.pid() == 12)).extracting(OwnedContainer::id)
			.containsExactly("a");
	}

	@Test
	void theReaperScriptCallsEachEngineOnceWithOnlyItsOwnVariables() {
		ProcessMarkers.Owner owner = new ProcessMarkers.Owner(42, "777", "host-a");
		ContainerEngine docker = new ContainerEngine(List.of("/usr/bin/docker", "--context", "it's"),
				Map.of("PATH", "/usr/bin", "DOCKER_HOST", "unix:///d.sock", "API_TOKEN", "s3cr3t"),
				Duration.ofSeconds(5));
		ContainerEngine podman = new ContainerEngine(List.of("/usr/bin/podman"), Map.of("HOME", "/root"),
				Duration.ofSeconds(5));
		String script = ContainerReaper.script(List.of(docker, podman, docker), owner);
		assertThat(script).contains(
				"engine1() { [ \"$1\" = remove ] && { shift; set -- 'rm' '-f' \"$@\"; }; ${bound:+timeout -s KILL 5} env -i 'DOCKER_HOST=unix:///d.sock' 'PATH=/usr/bin' '/usr/bin/docker' '--context' 'it'\\''s' \"$@\"; }")
			.contains(
					"engine2() { [ \"$1\" = remove ] && { shift; set -- 'rm' '-f' '--time' '0' \"$@\"; }; ${bound:+timeout -s KILL 5} env -i 'HOME=/root' '/usr/bin/podman' \"$@\"; }")
			.contains("'label=dev.mcpstdio.owner=42@777' --filter 'label=dev.mcpstdio.owner-host=host-a'")
			.doesNotContain("engine3")
			.doesNotContain("s3cr3t");
	}

}

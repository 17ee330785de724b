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

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.containment.Containment.SandboxSettings.Network;
import dev.mcpstdio.core.containment.Containment.SandboxSettings;
import dev.mcpstdio.core.containment.Containment.Settings;
import dev.mcpstdio.core.containment.Containment.Start;
import dev.mcpstdio.test.Sandboxes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link Bubblewrap}'s check of the listed paths after their mount: a path
 * swapped between the check before {@code bwrap} and its mount (here: a mount that is not
 * the device and inode checked) stops the start before the server's command runs.
 *
 * @author mcp-stdio authors
 */
class BubblewrapTests {

	@TempDir
	Path temp;

	@Test
	void aListedPathMountedOtherThanCheckedStopsTheStartBeforeTheServerRuns() throws IOException {
		Sandboxes.assume();
		Path listed = Sandboxes.writable(Files.createDirectories(Sandboxes.readable(this.temp).resolve("listed")));
		SandboxSettings settings = new SandboxSettings(true, Network.NONE, List.of(listed), List.of());
		Start start = new Start("checked", List.of("/bin/sh"), null, Map.of("PATH", System.getenv("PATH")),
				new Settings(SpecDefaults.container(), settings, Duration.ofSeconds(1)));
		Bubblewrap sandbox = Bubblewrap.of(start, new HashSet<>(), new SeccompPrograms(() -> null));
		List<String> command = List.of("/bin/sh", "-c", "echo served");
		CommandOutput served = BoundedCommand.run(sandbox.wrap(command), null, Duration.ofSeconds(30));
		assertThat(served.stdout().strip()).as(served.stderr()).isEqualTo("served");
		// what bwrap mounts is not what was checked: as if swapped in between
		String identity = settings.identities().get(listed);
		SandboxSettings other = new SandboxSettings(true, Network.NONE, List.of(listed), List.of(),
				Map.of(listed, "1:2"));
		Bubblewrap swapped = new Bubblewrap(sandbox.server(), sandbox.prefix(), sandbox.view(),
				ListedPaths.mounted(other));
		CommandOutput refused = BoundedCommand.run(swapped.wrap(command), null, Duration.ofSeconds(30));
		assertThat(refused.exitCode()).isEqualTo(125);
		assertThat(refused.stdout()).doesNotContain("served");
		assertThat(refused.stderr().strip()).isEqualTo("mcp-stdio: the sandbox mounted another " + listed
				+ " than the listed path checked before (device:inode 1:2, mounted " + identity
				+ "): it was swapped in between");
	}

}

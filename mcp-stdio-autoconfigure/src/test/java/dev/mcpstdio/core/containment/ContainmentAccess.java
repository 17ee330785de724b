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

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.tree.Membership;
import dev.mcpstdio.core.tree.Platform;
import dev.mcpstdio.core.tree.ProcReader;
import dev.mcpstdio.core.tree.ProcessScanner;
import dev.mcpstdio.test.Await;
import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What tests of other packages reach of a containment, and what this package's share.
 *
 * @author mcp-stdio authors
 */
public final class ContainmentAccess {

	/** Set (CI sets it) to fail instead of skip where cgroups cannot be used. */
	public static final String REQUIRE_CGROUP = "MCP_STDIO_REQUIRE_CGROUP";

	private ContainmentAccess() {
	}

	/**
	 * Return this JVM's cgroup containment; skip the test where there is none, or fail it
	 * where {@link #REQUIRE_CGROUP} is set.
	 */
	static Cgroups requireCgroups() {
		Cgroups cgroups = Cgroups.detect(ProcReader.system());
		if (cgroups.jvmGroup() == null) {
			String required = System.getenv(REQUIRE_CGROUP);
			if (required != null && !required.isBlank()) {
				fail("cgroup containment is required here (" + REQUIRE_CGROUP + "): " + cgroups.description());
			}
			assumeTrue(false, "no cgroup containment here: " + cgroups.description());
		}
		return cgroups;
	}

	/**
	 * Skip the test where this JVM has no cgroup containment, or fail it where
	 * {@link #REQUIRE_CGROUP} is set.
	 */
	public static void assumeCgroups() {
		requireCgroups();
	}

	/**
	 * Wait, bounded, for the engine to create the container of a start.
	 * @param containment the start's containment
	 * @param within how long to wait
	 * @return the container's full id, or {@code null} when there is none after the wait
	 */
	public static @Nullable String awaitContainerId(Containment containment, Duration within) {
		Container container = containment.part(Container.class);
		assertThat(container).as("the start's container").isNotNull();
		return awaitContainerId(container, within);
	}

	static @Nullable String awaitContainerId(Container container, Duration within) {
		long deadline = System.nanoTime() + within.toNanos();
		while (container.knownContainerId() == null && System.nanoTime() < deadline) {
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		return container.containerId();
	}

	/**
	 * Count a start's container through the engine even where this host sees its
	 * processes, as for an engine in a VM.
	 * @param containment the start's containment
	 */
	public static void countThroughEngineOnly(Containment containment) {
		Container container = containment.part(Container.class);
		assertThat(container).as("the start's container").isNotNull();
		container.countThroughEngineOnly();
	}

	/**
	 * Return the orphan guard this JVM runs, found among its children by its command
	 * line: setsid, then sh in its place, both with the guard's name and application.
	 * Waits up to 10 s for it: a child the JVM has just started shows the JVM's spawn
	 * helper's command line until its exec is done.
	 * @param application the guard's application, or {@code null} for any
	 * @return its pid, or {@code null} when none runs
	 */
	public static @Nullable Long guardPid(@Nullable String application) {
		return Await.within(Duration.ofSeconds(10)).value(() -> findGuard(application), Objects::nonNull);
	}

	private static @Nullable Long findGuard(@Nullable String application) {
		return ProcessHandle.current()
			.children()
			.filter((child) -> child.info()
				.arguments()
				.map(List::of)
				.filter((args) -> args.contains(GuardWatcher.NAME)
						&& (application == null || args.contains(application)))
				.isPresent())
			.map(ProcessHandle::pid)
			.findFirst()
			.orElse(null);
	}

	/** A host without orphan guard and cgroups, whose tasks run on the caller. */
	static Containments host() {
		return new Containments(new OrphanGuard(Platform.current(), false, "test"), Runnable::run,
				new ProcessScanner(Platform.current(), ProcReader.system()), Membership.ofCurrentUser(),
				ProcReader.system(), false);
	}

	/** A start of {@code command args…}, with the given container settings. */
	static Containment.Start start(String server, ContainerSettings settings, @Nullable Path workingDirectory,
			String command, String... args) {
		List<String> line = new ArrayList<>(List.of(command));
		line.addAll(List.of(args));
		return new Containment.Start(server, line, workingDirectory, Map.of(),
				new Containment.Settings(settings, SpecDefaults.sandbox(), Duration.ofSeconds(1)));
	}

}

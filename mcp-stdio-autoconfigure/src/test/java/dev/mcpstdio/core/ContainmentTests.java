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

package dev.mcpstdio.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.containers.ContainerLaunch;
import dev.mcpstdio.core.containers.ContainerStats;
import dev.mcpstdio.test.ContainerEngines;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.TestHost;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link Containment} and {@link Containments} in the core: a refused container
 * command at launch, the engine's count of a container whose processes this host would
 * not see, and the marker path for an escaped daemon under load, without cgroups.
 *
 * @author mcp-stdio authors
 */
class ContainmentTests {

	private static volatile @Nullable ServerHost withoutCgroups;

	private final Fixtures fixtures = new Fixtures();

	private final List<StdioServerProcess> started = new ArrayList<>();

	/**
	 * Return a host whose servers get no cgroup: for the tests of what finds a process
	 * without it.
	 * @return the host
	 */
	static synchronized ServerHost withoutCgroups() {
		ServerHost host = withoutCgroups;
		if (host == null) {
			host = ServerHost.builder().cgroups(false).build();
			withoutCgroups = host;
		}
		return host;
	}

	@AfterEach
	void noneLeft() {
		for (StdioServerProcess process : this.started) {
			process.stop();
		}
		ContainerEngines.assertNoneLeftIfUsed(this.fixtures.id(), Duration.ofSeconds(10));
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void aRefusedContainerCommandFailsTheStartNamingTheArgument(@TempDir Path temp) throws IOException {
		// the core refuses it too, for users without the auto-configuration's check
		Path docker = Files.writeString(temp.resolve("docker"), "#!/bin/sh\nexit 3\n");
		Files.setPosixFilePermissions(docker, PosixFilePermissions.fromString("rwx------"));
		StdioServerSpec spec = StdioServerSpec.of("tty", docker.toString(), "run", "-it", "image")
			.withEnv(Map.of(Fixtures.MARKER, this.fixtures.id()));
		assertThatExceptionOfType(McpStdioException.class)
			.isThrownBy(() -> TestHost.shared().start(spec, MessageListener.NONE))
			.withMessageStartingWith("Could not start MCP server 'tty': args[1]: -t (--tty)");
	}

	@Test
	void aContainerThisHostCannotSeeIsCountedThroughTheEngine() {
		String engine = ContainerEngines.require();
		StdioServerSpec spec = StdioServerSpec
			.of("vm-like", engine, "run", "-i", "--rm", "--label",
					ContainerEngines.TEST_LABEL + "=" + this.fixtures.id(), "-e",
					Fixtures.MARKER + "=" + this.fixtures.id(), ContainerEngines.IMAGE, "sh", "/srv/family.sh")
			.withEnv(Map.of(Fixtures.MARKER, this.fixtures.id()))
			.withShutdown(Fixtures.FAST);
		StdioServerProcess process = TestHost.shared().start(spec, MessageListener.NONE);
		this.started.add(process);
		Containment containment = process.containment();
		ContainerLaunch launch = containment.container();
		assertThat(launch).isNotNull();
		assertThat(launch.awaitContainerId(Duration.ofSeconds(60))).isNotNull();
		// where the engine runs on this host, /proc shows them with our markers
		int onHost = awaitCount(process, 4);
		assertThat(onHost).as("the CLI, the server and its two helpers").isGreaterThanOrEqualTo(4);
		assertThat(containment.engineFigures()).isEqualTo(new ContainerStats(0, 0));
		// as with an engine in a VM: the engine's figures are added, refreshed in the
		// background, never waited for
		containment.countThroughEngineOnly();
		long begin = System.nanoTime();
		ContainerStats first = containment.engineFigures();
		assertThat(Duration.ofNanos(System.nanoTime() - begin)).isLessThan(Duration.ofMillis(500));
		assertThat(first).isEqualTo(new ContainerStats(0, 0));
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (containment.engineFigures().processes() == 0 && System.nanoTime() < deadline) {
			Fixtures.sleep(100);
		}
		ContainerStats counted = containment.engineFigures();
		assertThat(counted.processes()).as("the server and its two helpers").isGreaterThanOrEqualTo(3);
		assertThat(counted.memoryBytes()).isPositive();
		assertThat(process.treeStats().liveProcesses()).isGreaterThanOrEqualTo(onHost - 1 + counted.processes());
	}

	@Test
	void aDaemonThatLeftTheSessionIsFoundByItsMarkerUnderLoad() throws Exception {
		// the escapee race of issue 14: scans while it execs (setsid, then sh) must not
		// lose its marker; two spinning threads keep both cores busy meanwhile
		AtomicBoolean spinning = new AtomicBoolean(true);
		List<Thread> spinners = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			Thread spinner = new Thread(() -> {
				long x = 0;
				while (spinning.get()) {
					x += System.nanoTime() % 7;
				}
				if (x == 42) {
					System.out.print("");
				}
			});
			spinner.setDaemon(true);
			spinner.start();
			spinners.add(spinner);
		}
		try {
			for (int run = 0; run < 5; run++) {
				StdioServerProcess process = withoutCgroups()
					.start(this.fixtures.spec("escapee-" + run, "escapes-setsid.sh"), MessageListener.NONE);
				// stop as soon as it is up: the daemon is still in its execs
				StopResult result = process.stop();
				assertThat(result.outcome()).isIn(ExitCause.CLEAN, ExitCause.TERMINATED);
				this.fixtures.assertNoneAlive(Duration.ZERO);
			}
		}
		finally {
			spinning.set(false);
			for (Thread spinner : spinners) {
				spinner.join(5000);
			}
		}
	}

	private static int awaitCount(StdioServerProcess process, int atLeast) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		int count = process.treeStats().liveProcesses();
		while (count < atLeast && System.nanoTime() < deadline) {
			Fixtures.sleep(50);
			count = process.treeStats().liveProcesses();
		}
		return count;
	}

}

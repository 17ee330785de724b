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

package dev.mcpstdio.core.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.containment.Containment;
import dev.mcpstdio.core.containment.ContainmentAccess;
import dev.mcpstdio.core.server.StdioServerProcess.StopResult;
import dev.mcpstdio.core.tree.ProcessTree;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.ContainerEngines;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.test.TestHost;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link Containment} through the core's start and stop.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class ContainmentTests {

	private final Fixtures fixtures;

	private final List<StdioServerProcess> started = new ArrayList<>();

	ContainmentTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@AfterEach
	void noneLeft() {
		for (StdioServerProcess process : this.started) {
			process.stop();
		}
	}

	@Test
	void aRefusedContainerCommandFailsTheStartNamingTheArgument(@TempDir Path temp) throws IOException {
		// the core refuses it too, for users without the auto-configuration's check
		Path docker = Files.writeString(temp.resolve("docker"), "#!/bin/sh\nexit 3\n");
		Files.setPosixFilePermissions(docker, PosixFilePermissions.fromString("rwx------"));
		StdioServerSpec spec = SpecDefaults.of("tty", docker.toString(), "run", "-it", "image")
			.withEnv(Map.of(Fixtures.MARKER, this.fixtures.id()));
		assertThatExceptionOfType(McpStdioException.class)
			.isThrownBy(() -> TestHost.shared().start(spec, MessageListener.NONE))
			.withMessageStartingWith("Could not start MCP server 'tty': args[1]: -t (--tty)");
	}

	@Test
	void aContainerThisHostCannotSeeIsCountedThroughTheEngine() {
		String engine = ContainerEngines.require();
		StdioServerSpec spec = SpecDefaults
			.of("vm-like", engine, "run", "-i", "--rm", "--label", this.fixtures.containerLabel(), "-e",
					Fixtures.MARKER + "=" + this.fixtures.id(), ContainerEngines.IMAGE, "sh", "/srv/family.sh")
			.withEnv(Map.of(Fixtures.MARKER, this.fixtures.id()))
			.withShutdown(Fixtures.FAST);
		StdioServerProcess process = TestHost.shared().start(spec, MessageListener.NONE);
		this.started.add(process);
		Containment containment = process.containment;
		assertThat(ContainmentAccess.awaitContainerId(containment, Duration.ofSeconds(60))).isNotNull();
		// where the engine runs on this host, /proc shows them with our markers
		int onHost = awaitCount(process, 4);
		assertThat(onHost).as("the CLI, the server and its two helpers").isGreaterThanOrEqualTo(4);
		assertThat(containment.unseen()).isEqualTo(new ProcessTree.Stats(0, 0));
		// as with an engine in a VM: the engine's figures are added, refreshed in the
		// background, never waited for
		ContainmentAccess.countThroughEngineOnly(containment);
		long begin = System.nanoTime();
		ProcessTree.Stats first = containment.unseen();
		assertThat(Duration.ofNanos(System.nanoTime() - begin)).isLessThan(Duration.ofMillis(500));
		assertThat(first).isEqualTo(new ProcessTree.Stats(0, 0));
		ProcessTree.Stats counted = Await.within(Duration.ofSeconds(30))
			.every(Duration.ofMillis(100))
			.value(containment::unseen, (figures) -> figures.liveProcesses() > 0);
		assertThat(counted.liveProcesses()).as("the server and its two helpers").isGreaterThanOrEqualTo(3);
		assertThat(counted.memoryBytes()).isPositive();
		// the engine's count on top of what the host sees (the CLI, the server
		// and its two helpers at least): more than the host alone could count,
		// read together, as the helpers' short sleeps come and go in both counts
		Await.that("the engine's count added to the host's",
				() -> process.treeStats().liveProcesses() >= 4 + containment.unseen().liveProcesses());
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
				StdioServerProcess process = TestHost.withoutCgroups()
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
		return Await.within(Duration.ofSeconds(30))
			.every(Duration.ofMillis(50))
			.value(() -> process.treeStats().liveProcesses(), (count) -> count >= atLeast);
	}

}

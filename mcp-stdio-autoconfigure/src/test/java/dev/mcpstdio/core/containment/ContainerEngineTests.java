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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.core.tree.ProcessMarkers;
import dev.mcpstdio.core.tree.ProcReader;
import dev.mcpstdio.core.tree.ProcessTree;
import dev.mcpstdio.test.ContainerEngines;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.test.TestHost;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Tests for ending, listing and sweeping containers through a real engine.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class ContainerEngineTests {

	private final Fixtures fixtures;

	ContainerEngineTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	private ContainerServer start(String script, String... options) throws Exception {
		return ContainerServer.start(this.fixtures, "box",
				"t-" + ProcessHandle.current().pid() + "-" + System.nanoTime(), ProcessMarkers.Owner.current(),
				List.of(options), script);
	}

	@Test
	void anEofHonouringContainerEndsWhenItsStdinCloses() throws Exception {
		try (ContainerServer server = start("/srv/echo.sh", "--rm")) {
			assertThat(server.request(1)).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"echo\":\"ping\"}}");
			String id = server.containerId();
			assertThat(server.launch.engine().isRunning(id)).isTrue();
			long start = System.nanoTime();
			server.closeStdin();
			assertThat(server.awaitCliExit(Duration.ofSeconds(20))).isTrue();
			ContainerEngines.assertNoneLeft(this.fixtures.id(), Duration.ofSeconds(20));
			System.out.printf("EOF-honouring container gone %d ms after stdin closed%n",
					(System.nanoTime() - start) / 1_000_000);
			assertThat(server.cli.exitValue()).isZero();
		}
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void anEofAndSigtermIgnoringContainerIsEndedThroughTheEngine() throws Exception {
		try (ContainerServer server = start("/srv/stubborn.sh", "--rm")) {
			assertThat(server.request(1)).contains("\"echo\":\"ping\"");
			String id = server.containerId();
			server.closeStdin();
			assertThat(server.awaitCliExit(Duration.ofSeconds(1))).isFalse();
			assertThat(server.launch.engine().isRunning(id)).isTrue();
			ContainerStop stop = server.launch.stop(Duration.ofSeconds(1));
			assertThat(stop).isNotNull();
			assertThat(stop.ids()).containsExactly(id);
			assertThat(stop.terminated()).isEqualTo(1);
			assertThat(stop.killed()).as("PID 1 without a SIGTERM handler needs the kill").isEqualTo(1);
			assertThat(stop.removed()).isTrue();
			assertThat(stop.took()).isLessThan(Duration.ofSeconds(30));
			System.out.println("EOF- and SIGTERM-ignoring container ended by kill TERM + rm -f in " + stop.took());
			assertThat(server.awaitCliExit(Duration.ofSeconds(20))).isTrue();
			ContainerEngines.assertNoneLeft(this.fixtures.id(), Duration.ofSeconds(10));
		}
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void initLetsSigtermEndAServerThatHasNoHandler() throws Exception {
		// the same server as PID 2 under docker-init: SIGTERM is forwarded and not
		// ignored
		boolean podman = ContainerEngines.require().endsWith("podman");
		assumeTrue(!podman || Files.exists(Path.of("/usr/libexec/podman/catatonit")),
				"podman's --init needs catatonit, which is not installed");
		try (ContainerServer server = start("/srv/echo.sh", "--rm", "--init")) {
			assertThat(server.request(1)).contains("\"echo\":\"ping\"");
			ContainerStop stop = server.launch.stop(Duration.ofSeconds(20));
			assertThat(stop).isNotNull();
			assertThat(stop.terminated()).isEqualTo(1);
			assertThat(stop.killed()).isZero();
			assertThat(stop.removed()).isTrue();
			assertThat(server.awaitCliExit(Duration.ofSeconds(20))).isTrue();
		}
		ContainerEngines.assertNoneLeft(this.fixtures.id(), Duration.ofSeconds(10));
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void killingTheCliLeavesTheContainerWhichIsFoundByItsLabelAndEnded() throws Exception {
		try (ContainerServer server = start("/srv/stubborn.sh")) {
			assertThat(server.request(1)).contains("\"echo\":\"ping\"");
			String id = server.containerId();
			server.cli.destroyForcibly();
			assertThat(server.awaitCliExit(Duration.ofSeconds(10))).isTrue();
			Fixtures.sleep(500);
			ContainerEngine engine = server.launch.engine();
			assertThat(engine.isRunning(id)).as("the leak this prevents").isTrue();
			assertThat(engine.ids("label=" + ContainerEngine.INSTANCE_LABEL + "=" + server.instance))
				.containsExactly(id);
			ContainerStop stop = ContainerStop.end(engine, List.of(id), List.of(id), Duration.ofMillis(500));
			assertThat(stop.removed()).isTrue();
			// without --rm the stopped container is removed too
			assertThat(engine.ids("id=" + id)).isEmpty();
		}
		ContainerEngines.assertNoneLeft(this.fixtures.id(), Duration.ofSeconds(10));
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void aContainerThatIsGoneCostsNoWaiting() throws Exception {
		try (ContainerServer server = start("/srv/echo.sh", "--rm")) {
			assertThat(server.request(1)).contains("\"echo\":\"ping\"");
			String id = server.containerId();
			server.closeStdin();
			assertThat(server.awaitCliExit(Duration.ofSeconds(20))).isTrue();
			ContainerEngines.assertNoneLeft(this.fixtures.id(), Duration.ofSeconds(20));
			ContainerStop stop = server.launch.stop(Duration.ofSeconds(30));
			assertThat(stop).isNotNull();
			assertThat(stop.terminated()).isZero();
			assertThat(stop.removed()).isTrue();
			assertThat(stop.took()).isLessThan(Duration.ofSeconds(20));
			assertThat(server.launch.engine().isRunning(id)).isFalse();
		}
	}

	@Test
	void theContainersProcessesCarryOurMarkersInTheHostsProcAndAreCounted() throws Exception {
		String name = "family-" + System.nanoTime();
		// an instance of this JVM: the census counts only processes it can prove are ours
		String instance = ProcessMarkers.newInstance();
		try (ContainerServer server = ContainerServer.start(this.fixtures, name, instance,
				ProcessMarkers.Owner.current(), List.of("--rm"), "/srv/family.sh")) {
			assertThat(server.request(1)).contains("ping");
			String id = server.containerId();
			ContainerEngine engine = server.launch.engine();
			// this host sees the container's processes, with their markers
			ProcessMarkers markers = ProcReader.system().markers(engine.mainPid(id));
			assertThat(markers).isNotNull();
			assertThat(markers.instance()).isEqualTo(instance);
			List<Long> inContainer = new ArrayList<>();
			for (long pid : this.fixtures.alive()) {
				boolean underCli = pid == server.cli.pid() || ProcessHandle.of(pid)
					.flatMap(ProcessHandle::parent)
					.map((parent) -> parent.pid() == server.cli.pid())
					.orElse(false);
				String environ = environ(pid);
				// a sleep of the helpers may end between the scan and the read
				if (!underCli && environ != null) {
					inContainer.add(pid);
					assertThat(environ.split("\0")).contains(ProcessMarkers.SERVER + "=" + name,
							ProcessMarkers.OWNER_PID + "=" + ProcessMarkers.CURRENT_PID,
							ProcessMarkers.INSTANCE + "=" + instance);
				}
			}
			// the server and its two helpers (and their sleeps, which come and go)
			assertThat(inContainer).hasSizeGreaterThanOrEqualTo(3);
			assertThat(TestHost.shared().count(name, List.of()).liveProcesses()).as("the CLI and the container's")
				.isGreaterThanOrEqualTo(4);
			ProcessTree.Stats stats = engine.stats(id);
			assertThat(stats.liveProcesses()).isGreaterThanOrEqualTo(3);
			assertThat(stats.memoryBytes()).isPositive();
			server.closeStdin();
			assertThat(server.awaitCliExit(Duration.ofSeconds(20))).isTrue();
		}
		ContainerEngines.assertNoneLeft(this.fixtures.id(), Duration.ofSeconds(20));
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	private static @Nullable String environ(long pid) {
		try {
			return new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ")),
					StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			return null;
		}
	}

	@Test
	void theSweepRemovesContainersOfDeadOwnersAndOfReusedPidsOnly() throws Exception {
		// the start-up sweep of another JVM on this machine (another test class, another
		// build) removes orphaned containers too, as it should: when it came first, the
		// attempt proves nothing and is made again
		boolean proved = false;
		for (int attempt = 0; attempt < 3 && !proved; attempt++) {
			proved = sweepRemovedTheOrphans();
		}
		assertThat(proved).as("a sweep that found both orphans (another sweep came first three times)").isTrue();
		ContainerEngines.assertNoneLeft(this.fixtures.id(), Duration.ofSeconds(10));
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	/**
	 * Leave containers of a dead owner and of a reused pid beside one of a live owner,
	 * and sweep them.
	 * @return whether the sweep found both orphans, or {@code false} when another sweep
	 * removed one first
	 */
	private boolean sweepRemovedTheOrphans() throws Exception {
		Process live = new ProcessBuilder("sleep", "120").start();
		Process dying = new ProcessBuilder("sleep", "120").start();
		try {
			ProcessMarkers.Owner liveOwner = ProcessMarkers.Owner.of(live.pid());
			ProcessMarkers.Owner deadOwner = ProcessMarkers.Owner.of(dying.pid());
			ProcessMarkers.Owner reusedPid = new ProcessMarkers.Owner(live.pid(), liveOwner.start() + "7",
					liveOwner.host());
			dying.destroyForcibly();
			assertThat(dying.waitFor(5, TimeUnit.SECONDS)).isTrue();
			try (ContainerServer ofDead = ContainerServer.start(this.fixtures, "a", "d-1", deadOwner, List.of(),
					"/srv/stubborn.sh");
					ContainerServer ofReused = ContainerServer.start(this.fixtures, "b", "r-1", reusedPid,
							List.of("--rm"), "/srv/stubborn.sh");
					ContainerServer ofLive = ContainerServer.start(this.fixtures, "c", "l-1", liveOwner, List.of(),
							"/srv/echo.sh")) {
				String dead = ofDead.containerId();
				String reused = ofReused.containerId();
				String alive = ofLive.containerId();
				assertThat(ofDead.request(1)).contains("ping");
				assertThat(ofReused.request(1)).contains("ping");
				assertThat(ofLive.request(1)).contains("ping");
				// the owners' CLIs died with them: only the containers are left
				ofDead.cli.destroyForcibly();
				ofReused.cli.destroyForcibly();
				ContainerEngine engine = ofDead.launch.engine();
				ContainerStop result = Leftovers.sweepEngine(engine, Duration.ofSeconds(1),
						"label=" + this.fixtures.containerLabel());
				System.out.println("Sweep of 2 orphaned containers took " + result.took());
				List<String> orphans = List.of(dead, reused);
				if (!result.ids().containsAll(orphans) && orphans.stream()
					.anyMatch((id) -> !result.ids().contains(id) && engine.ids("id=" + id).isEmpty())) {
					System.out.println("Another sweep removed an orphan first: " + result.ids());
					ContainerEngines.removeAll(this.fixtures.id());
					return false;
				}
				assertThat(result.ids()).containsExactlyInAnyOrder(dead, reused);
				// both ran, unless the process sweep of another JVM of this machine
				// killed
				// their marked PIDs 1 first, as it should (their owners are dead)
				assertThat(result.terminated()).isBetween(0, 2);
				assertThat(result.killed()).as("SIGTERM-ignoring PIDs 1").isEqualTo(result.terminated());
				assertThat(ContainerEngines.containers(this.fixtures.id())).containsExactly(alive);
				assertThat(ofLive.request(2)).contains("ping");
				assertThat(ContainerStop.end(engine, List.of(alive), List.of(alive), Duration.ofSeconds(1)).removed())
					.isTrue();
			}
		}
		finally {
			live.destroyForcibly();
		}
		return true;
	}

	@Test
	void theReaperScriptEndsTheContainersOfAJvmThatIsGone() throws Exception {
		Process dying = new ProcessBuilder("sleep", "120").start();
		ProcessMarkers.Owner owner = ProcessMarkers.Owner.of(dying.pid());
		Path directory = Files.createTempDirectory("mcp-stdio-reaper");
		try (ContainerServer stubborn = ContainerServer.start(this.fixtures, "a", "g-1", owner, List.of(),
				"/srv/stubborn.sh");
				ContainerServer polite = ContainerServer.start(this.fixtures, "b", "g-2", owner, List.of("--rm"),
						"/srv/echo.sh")) {
			assertThat(stubborn.request(1)).contains("ping");
			assertThat(polite.request(1)).contains("ping");
			Path script = Files.writeString(directory.resolve("containers.sh"),
					ContainerReaper.script(List.of(stubborn.launch.engine(), polite.launch.engine()), owner));
			assertThat(Files.readString(script)).contains("env -i").doesNotContain("MCP_STDIO_TEST_SECRET");
			// the JVM "dies": its CLIs' stdin ends, the guard runs the reaper
			dying.destroyForcibly();
			stubborn.closeStdin();
			polite.closeStdin();
			long start = System.nanoTime();
			ContainerEngines.Result reaped = ContainerEngines.run(List.of("sh", script.toString(), "3000", "1000"),
					Duration.ofSeconds(60));
			System.out.printf("Reaper ended the containers of a dead JVM in %d ms%n",
					(System.nanoTime() - start) / 1_000_000);
			assertThat(reaped.exitCode()).as(reaped.output()).isZero();
			assertThat(ContainerEngines.containers(this.fixtures.id())).isEmpty();
		}
		finally {
			dying.destroyForcibly();
			Files.deleteIfExists(directory.resolve("containers.sh"));
			Files.deleteIfExists(directory);
		}
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

}

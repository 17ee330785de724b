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
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.core.tree.Platform;
import dev.mcpstdio.core.tree.ProcReader;
import dev.mcpstdio.core.tree.ProcessMarkers;
import dev.mcpstdio.core.tree.ProcessScanner;
import dev.mcpstdio.core.tree.ProcessTable.Proc;
import dev.mcpstdio.core.tree.TreeTerminator;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Tests for {@link Cgroups} and {@link Cgroup} with real cgroups, where the JVM may.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class CgroupTests {

	private final Fixtures fixtures;

	private final List<Process> started = new ArrayList<>();

	private final List<Cgroup> groups = new ArrayList<>();

	private Cgroups containment;

	private Path directory;

	CgroupTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@BeforeEach
	// skipped, saying why, where this machine does not let the JVM write the cgroup v2
	// hierarchy, unless ContainmentAccess.REQUIRE_CGROUP is set, as in CI
	void detect() throws IOException {
		this.containment = ContainmentAccess.requireCgroups();
		this.directory = Files.createTempDirectory("mcp-stdio-cgroup");
	}

	@AfterEach
	void cleanUp() throws IOException {
		this.started.forEach(Process::destroyForcibly);
		for (Cgroup group : this.groups) {
			group.terminate(Duration.ofMillis(100));
			group.remove();
		}
		if (this.directory != null) {
			try (var files = Files.list(this.directory)) {
				for (Path file : files.toList()) {
					Files.deleteIfExists(file);
				}
			}
			Files.deleteIfExists(this.directory);
		}
	}

	private Cgroup group() {
		Cgroup group = this.containment.create("contained",
				"t-" + ProcessMarkers.CURRENT_PID + "-" + System.nanoTime());
		assertThat(group).isNotNull();
		this.groups.add(group);
		return group;
	}

	/**
	 * Start a shell script the way the launcher will: setsid, then the group, then it.
	 */
	private Process start(Cgroup group, String script) throws IOException {
		List<String> command = new ArrayList<>();
		command.add("setsid");
		command.addAll(group.wrap(List.of("/bin/sh", "-c", script)));
		ProcessBuilder builder = new ProcessBuilder(command);
		builder.environment().put(Fixtures.MARKER, this.fixtures.id());
		builder.environment().put(ProcessMarkers.SERVER, "contained");
		builder.environment().put(ProcessMarkers.OWNER_PID, Long.toString(ProcessMarkers.CURRENT_PID));
		builder.redirectErrorStream(true);
		Process process = builder.start();
		this.started.add(process);
		return process;
	}

	/**
	 * Read a line, bounded: a server that says nothing fails the test, never hangs it.
	 */
	private static String readLine(Process process) {
		InputStream in = process.getInputStream();
		StringBuilder line = new StringBuilder();
		boolean whole = Await.within(Duration.ofSeconds(20)).every(Duration.ofMillis(5)).holds(() -> {
			try {
				while (in.available() > 0) {
					int c = in.read();
					if (c < 0 || c == '\n') {
						return true;
					}
					line.append((char) c);
				}
				return !process.isAlive();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		});
		assertThat(whole).as("a whole line from %s within 20s, so far: %s", process.pid(), line).isTrue();
		return line.toString();
	}

	/** Wait until a process runs the given program: before, its memory may read 0. */
	private static void awaitProgram(long pid, String program) {
		// the kernel names the program at its exec a moment before its first pages are
		// resident: under load that moment is long enough for a census to read 0
		Await.within(Duration.ofSeconds(20))
			.until(pid + " runs " + program + " with resident memory",
					() -> ProcessHandle.of(pid).flatMap((h) -> h.info().command()).orElse("").endsWith("/" + program)
							&& residentPages(pid) > 0);
	}

	private static long residentPages(long pid) {
		try {
			return Long.parseLong(Files.readString(Path.of("/proc/" + pid + "/statm")).split(" ")[1]);
		}
		catch (IOException | RuntimeException ex) {
			return 0;
		}
	}

	private long awaitPidFile(Path file) {
		Await.within(Duration.ofSeconds(20)).until("a pid in " + file, () -> {
			try {
				return Files.readString(file).strip().matches("[0-9]+");
			}
			catch (IOException ex) {
				return false;
			}
		});
		try {
			return Long.parseLong(Files.readString(file).strip());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Test
	void theDescriptionSaysWhichContainmentIsInUse() {
		assertThat(this.containment.description()).startsWith("cgroup v2: each server in its own group under ")
			.contains(Cgroups.GROUP_PREFIX + ProcessMarkers.CURRENT_PID + "-");
		assertThat(Cgroups.none("cgroup v2 is not mounted").description())
			.isEqualTo("none (cgroup v2 is not mounted); servers are followed by process tree, session and markers");
	}

	@Test
	void theServerJoinsItsGroupBeforeItsCommandRunsAndKeepsItsPid() throws Exception {
		Cgroup group = group();
		Process server = start(group, "echo $$; grep '^0::' /proc/self/cgroup; sleep 60 & echo $!; exec cat");
		assertThat(readLine(server)).isEqualTo(Long.toString(server.pid()));
		assertThat(readLine(server)).endsWith("/" + group.path().getFileName());
		long child = Long.parseLong(readLine(server));
		assertThat(group.pids()).contains(server.pid(), child);
		assertThat(group.pids().contains(child)).isTrue();
		// both in their programs, not in an exec whose memory reads 0
		awaitProgram(child, "sleep");
		awaitProgram(server.pid(), "cat");
		// what the census counts of the group: both, with their resident memory
		Map<Long, Proc> found = new HashMap<>();
		group.addMembers(found, new ProcessScanner(Platform.current(), ProcReader.system()).everyProcess().scan());
		assertThat(found).containsOnlyKeys(server.pid(), child);
		assertThat(found.values().stream().mapToLong(Proc::rssBytes).sum()).isPositive();
		TreeTerminator.Result result = group.terminate(Duration.ofSeconds(5));
		assertThat(result.terminated()).isEqualTo(2);
		assertThat(result.killed()).isZero();
		assertThat(server.waitFor(10, TimeUnit.SECONDS)).isTrue();
		assertThat(group.remove()).isTrue();
		assertThat(group.path()).doesNotExist();
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void aGroupIsEmptyOnlyWhenNoProcessIsLeftInItOrInTheGroupsBelowIt() throws Exception {
		Cgroup group = group();
		assertThat(group.isEmpty()).isTrue();
		Path below = group.path().resolve("below");
		// a process of the server that moved itself into a group of its own below
		Process server = start(group, "mkdir " + below + " && sh -c 'echo $$ > " + below
				+ "/cgroup.procs && echo $$ && exec sleep 60' & exec cat");
		long moved = Long.parseLong(readLine(server));
		assertThat(group.isEmpty()).isFalse();
		assertThat(group.pids()).contains(server.pid(), moved);
		ProcessHandle.of(server.pid()).ifPresent(ProcessHandle::destroyForcibly);
		assertThat(server.waitFor(10, TimeUnit.SECONDS)).isTrue();
		assertThat(group.isEmpty()).as("the process below is still running").isFalse();
		assertThat(group.pids()).containsExactly(moved);
		assertThat(group.terminate(Duration.ofSeconds(5)).terminated()).isEqualTo(1);
		assertThat(group.isEmpty()).isTrue();
		assertThat(group.remove()).isTrue();
		assertThat(below).doesNotExist();
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void aDaemonThatLeftTheSessionAndClearedItsEnvironmentIsEndedWithTheGroup() throws Exception {
		Cgroup group = group();
		Path pidFile = this.directory.resolve("daemon.pid");
		// double fork, new session, empty environment: no tree, session or marker finds
		// it
		String daemon = "env -i /usr/bin/setsid /bin/sh -c '/bin/sh -c \"echo \\$\\$ > " + pidFile
				+ "; exec /bin/sleep 600\" & exit 0' < /dev/null > /dev/null 2>&1 &";
		Process server = start(group, daemon + " echo started; cat");
		assertThat(readLine(server)).isEqualTo("started");
		long pid = awaitPidFile(pidFile);
		ProcessHandle handle = ProcessHandle.of(pid).orElseThrow();
		// the pid is written just before the exec: on a loaded machine it can be read
		// first
		Await.within(Duration.ofSeconds(10)).holds(() -> handle.info().command().orElse("").endsWith("sleep"));
		assertThat(handle.info().command()).hasValueSatisfying((command) -> assertThat(command).endsWith("sleep"));
		String environ = Files.readString(Path.of("/proc", Long.toString(pid), "environ"), StandardCharsets.UTF_8);
		assertThat(environ).doesNotContain("MCP_STDIO");
		assertThat(sessionOf(pid)).isNotEqualTo(server.pid());
		assertThat(handle.parent().map(ProcessHandle::pid)).isNotEqualTo(Optional.of(server.pid()));
		assertThat(group.pids().contains(pid)).as("the daemon is still in the server's group").isTrue();
		// the server dies alone: the daemon survives it, escaped from everything but the
		// group
		server.destroyForcibly();
		assertThat(server.waitFor(10, TimeUnit.SECONDS)).isTrue();
		Fixtures.sleep(200);
		assertThat(handle.isAlive()).isTrue();
		long start = System.nanoTime();
		TreeTerminator.Result result = group.terminate(Duration.ofSeconds(2));
		System.out.printf("Escaped daemon ended with its cgroup in %d ms%n", (System.nanoTime() - start) / 1_000_000);
		assertThat(result.terminated()).isEqualTo(1);
		assertThat(result.survivors()).isZero();
		assertThat(handle.onExit().get(10, TimeUnit.SECONDS).isAlive()).isFalse();
		assertThat(group.remove()).isTrue();
	}

	@Test
	void withoutCgroupKillAGroupThatIgnoresSigtermIsKilledPidByPid() throws Exception {
		Cgroup created = group();
		Cgroup group = new Cgroup("left", created.path(), false);
		Process server = start(group, "trap '' TERM; (trap '' TERM; while :; do sleep 0.05; done) & echo up; cat");
		assertThat(readLine(server)).isEqualTo("up");
		TreeTerminator.Result result = group.terminate(Duration.ofMillis(300));
		assertThat(result.terminated()).isGreaterThanOrEqualTo(2);
		assertThat(result.killed()).isGreaterThanOrEqualTo(2);
		assertThat(result.survivors()).isZero();
		assertThat(group.pids()).isEmpty();
		assertThat(server.waitFor(10, TimeUnit.SECONDS)).isTrue();
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void withCgroupKillAGroupThatIgnoresSigtermIsKilledAtOnce() throws Exception {
		Cgroup group = group();
		assumeTrue(Files.exists(group.path().resolve("cgroup.kill")), "no cgroup.kill before Linux 5.14");
		Process server = start(group, "trap '' TERM; (trap '' TERM; while :; do sleep 0.05; done) & echo up; cat");
		assertThat(readLine(server)).isEqualTo("up");
		TreeTerminator.Result result = group.terminate(Duration.ofMillis(300));
		assertThat(result.killed()).isGreaterThanOrEqualTo(2);
		assertThat(result.survivors()).isZero();
		assertThat(server.waitFor(10, TimeUnit.SECONDS)).isTrue();
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void aGroupThatCannotBeJoinedRunsNothing() throws Exception {
		Cgroup missing = new Cgroup("left", this.directory.resolve("not-a-group"), false);
		Process server = start(missing, "echo ran");
		assertThat(server.waitFor(10, TimeUnit.SECONDS)).isTrue();
		assertThat(server.exitValue()).isEqualTo(125);
		assertThat(new String(server.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).doesNotContain("ran")
			.contains("not-a-group/cgroup.procs");
	}

	@Test
	void theReaperScriptEndsEveryProcessOfTheGroupAndRemovesIt() throws Exception {
		Cgroup group = group();
		Process server = start(group, "trap '' TERM; (trap '' TERM; while :; do sleep 0.05; done) & echo up; cat");
		assertThat(readLine(server)).isEqualTo("up");
		Path script = this.directory.resolve("cgroup.sh");
		Files.writeString(script, Cgroups.reaper(group.path(), true));
		Process reaper = new ProcessBuilder("sh", script.toString(), "200", "300").start();
		assertThat(reaper.waitFor(20, TimeUnit.SECONDS)).isTrue();
		assertThat(reaper.exitValue()).isZero();
		assertThat(group.pids()).isEmpty();
		assertThat(group.path()).doesNotExist();
		assertThat(server.waitFor(10, TimeUnit.SECONDS)).isTrue();
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void theSweepEndsTheGroupsOfDeadJvmsOnly() throws Exception {
		// under a parent of this test's own, which no other JVM's sweep reads
		// (its name names no JVM): the start-up sweep of another test class or
		// build on this machine would end the dead JVM's group first
		Path parent = Files.createDirectories(
				this.containment.jvmGroup().getParent().resolve(Cgroups.GROUP_PREFIX + this.fixtures.id()));
		try {
			Cgroups sandbox = containmentUnder(parent);
			assertThat(sandbox.jvmGroup()).as(sandbox.description()).isNotNull();
			Process dying = new ProcessBuilder("sleep", "60").start();
			ProcessMarkers.Owner dead = ProcessMarkers.Owner.of(dying.pid());
			dying.destroyForcibly();
			assertThat(dying.waitFor(5, TimeUnit.SECONDS)).isTrue();
			Path deadGroup = parent.resolve(Cgroups.GROUP_PREFIX + dead.pid() + "-" + dead.start());
			Cgroup left = new Cgroup("left", Files.createDirectories(deadGroup.resolve("1-1")), true);
			Process orphan = start(left, "trap '' TERM; echo up; exec sleep 600");
			assertThat(readLine(orphan)).isEqualTo("up");
			Cgroup mine = sandbox.create("contained", "t-" + ProcessMarkers.CURRENT_PID + "-" + System.nanoTime());
			assertThat(mine).isNotNull();
			Process server = start(mine, "echo up; exec cat");
			assertThat(readLine(server)).isEqualTo("up");
			try {
				int swept = sandbox.sweep(Duration.ofMillis(300));
				assertThat(swept).isGreaterThanOrEqualTo(1);
				assertThat(orphan.waitFor(10, TimeUnit.SECONDS)).isTrue();
				assertThat(deadGroup).doesNotExist();
				assertThat(server.isAlive()).isTrue();
				assertThat(mine.pids()).containsExactly(server.pid());
			}
			finally {
				orphan.destroyForcibly();
				server.destroyForcibly();
				new Cgroup("left", deadGroup, true).awaitEmptyAndRemove();
				mine.terminate(Duration.ofMillis(100));
				mine.remove();
			}
		}
		finally {
			Cgroups.removeQuietly(parent);
		}
	}

	/**
	 * A containment as this JVM's would be if its own cgroup were the given one, a child
	 * of its real one.
	 */
	private Cgroups containmentUnder(Path parent) throws IOException {
		String own = Cgroups.ownPath(Files.readAllLines(ProcReader.system().path("self/cgroup")));
		Path cgroup = Files.writeString(this.directory.resolve("cgroup"),
				"0::" + own.replaceFirst("/+$", "") + "/" + parent.getFileName() + "\n");
		return Cgroups.detect(ProcReader.system().path("self/mountinfo"), cgroup, ProcessMarkers.Owner.current());
	}

	@Test
	void mountinfoAndTheProcessCgroupAreRead() {
		List<String> mountinfo = List.of("30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755",
				"31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu",
				"40 30 0:37 / /sys/fs/cgroup/my\\040unified rw,relatime - cgroup2 cgroup2 rw");
		assertThat(Cgroups.cgroup2Mount(mountinfo)).containsExactly("/", "/sys/fs/cgroup/my unified");
		assertThat(Cgroups.cgroup2Mount(mountinfo.subList(0, 2))).isNull();
		assertThat(Cgroups.ownPath(List.of("4:memory:/x", "0::/user.slice/app.scope")))
			.isEqualTo("/user.slice/app.scope");
		assertThat(Cgroups.ownPath(List.of("4:memory:/x"))).isNull();
		assertThat(Cgroups.ownerOf("mcp-stdio-4242-123456"))
			.isEqualTo(new ProcessMarkers.Owner(4242, "123456", ProcessMarkers.Owner.current().host()));
		assertThat(Cgroups.ownerOf("mcp-stdio-4242-1700000000000ms").start()).isEqualTo("1700000000000ms");
		assertThat(Cgroups.ownerOf("other")).isNull();
	}

	private static long sessionOf(long pid) throws IOException {
		String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
		return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[4]);
	}

}

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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.mcpstdio.core.server.ExitCause;
import dev.mcpstdio.core.server.StdioServerProcess.StopResult;
import dev.mcpstdio.core.containment.ContainmentAccess;
import dev.mcpstdio.lifecycle.forked.ForkedMcpApplication;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for cgroup containment through the real product: a server whose daemon
 * double-forks into a new session and clears its environment (no tree, no group, no
 * session, no marker leads to it) is counted and ended through its cgroup, also when the
 * JVM is killed. Where the JVM cannot write the cgroup v2 hierarchy they are skipped,
 * saying why, unless {@value ContainmentAccess#REQUIRE_CGROUP} is set, as in CI.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class CgroupServerTests {

	private final Fixtures fixtures;

	private final ApplicationContextRunner runner = ContainmentContexts.runner();

	@TempDir
	Path temp;

	private final List<Daemon> daemons = new ArrayList<>();

	CgroupServerTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@BeforeEach
	void cgroups() {
		ContainmentAccess.assumeCgroups();
	}

	@AfterEach
	void cleanUp() {
		// by pid and start time: the daemon carries no marker
		this.daemons.forEach(Daemon::kill);
	}

	private String[] server(String name, Path pidFile) {
		String prefix = "mcp.stdio.servers." + name + ".";
		return new String[] { prefix + "command=sh", prefix + "args[0]=" + Fixtures.script("daemon-clears-env.sh"),
				prefix + "args[1]=" + pidFile, prefix + "env." + Fixtures.MARKER + "=" + this.fixtures.id() };
	}

	@Test
	void aDaemonThatLeftSessionAndMarkersIsCountedAndEndedWithItsCgroup() {
		Path pidFile = this.temp.resolve("daemon.pid");
		this.runner.withPropertyValues(server("daemonizes", pidFile)).run((context) -> {
			assertThat(context).hasNotFailed();
			McpStdioServer server = context.getBean(McpStdioServers.class).get("daemonizes");
			Daemon daemon = awaitDaemon(pidFile);
			assertThat(daemon.isAlive()).isTrue();
			assertThat(Files.readString(Path.of("/proc", Long.toString(daemon.pid), "environ")))
				.as("no marker leads to it")
				.isEmpty();
			// the root, the daemon and its sleep: the daemon is found only in the cgroup
			assertThat(awaitCount(server, 3)).isGreaterThanOrEqualTo(3);
			StopResult result = server.stopServer();
			assertThat(result).isNotNull();
			System.out.println("Server with an escaped, marker-less daemon stopped through McpStdioServer in "
					+ result.duration().toMillis() + " ms: " + result.outcome());
			assertThat(result.outcome()).as("the server itself exits on EOF").isEqualTo(ExitCause.CLEAN);
			assertThat(daemon.isAlive()).as("the daemon outlived the stop").isFalse();
			assertThat(daemon.children).allSatisfy((child) -> assertThat(child.isAlive()).isFalse());
		});
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void withoutCgroupsTheSameDaemonEscapesTheStop() {
		// what containment prevents: the documented limit of tree, session and markers
		Path pidFile = this.temp.resolve("daemon.pid");
		this.runner.withPropertyValues(server("escapes", pidFile))
			.withPropertyValues("mcp.stdio.cgroup.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				McpStdioServer server = context.getBean(McpStdioServers.class).get("escapes");
				Daemon daemon = awaitDaemon(pidFile);
				assertThat(server.stopServer().outcome()).isEqualTo(ExitCause.CLEAN);
				assertThat(daemon.isAlive()).isTrue();
			});
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void killMinus9OfTheJvmEndsTheDaemonInItsCgroup() throws Exception {
		Path pidFile = this.temp.resolve("daemon.pid");
		try (ForkedJvm jvm = ContainmentContexts.fork(List.of(server("daemonizes", pidFile)))) {
			assertThat(jvm.awaitLine(Duration.ofSeconds(120))).startsWith(ForkedMcpApplication.READY + " daemonizes=");
			Daemon daemon = awaitDaemon(pidFile);
			long begin = System.nanoTime();
			jvm.process().destroyForcibly();
			Duration bound = ContainmentContexts.guardBound().plusSeconds(5);
			Await.within(bound).every(Duration.ofMillis(20)).holds(() -> !daemon.isAlive());
			System.out.println("kill -9 of the JVM to its escaped daemon gone: "
					+ (System.nanoTime() - begin) / 1_000_000 + " ms");
			assertThat(daemon.isAlive()).as(() -> String.join("\n", jvm.output())).isFalse();
		}
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	private static int awaitCount(McpStdioServer server, int atLeast) {
		return Await.within(Duration.ofSeconds(10))
			.every(Duration.ofMillis(50))
			.value(() -> server.treeStats().liveProcesses(), (count) -> count >= atLeast);
	}

	private Daemon awaitDaemon(Path pidFile) {
		String pid = Await.within(Duration.ofSeconds(20)).every(Duration.ofMillis(20)).value(() -> {
			try {
				return Files.exists(pidFile) ? Files.readString(pidFile).strip() : "";
			}
			catch (IOException ex) {
				return "";
			}
		}, (read) -> !read.isEmpty());
		assertThat(pid).as("the daemon's pid").matches("[0-9]+");
		ProcessHandle handle = ProcessHandle.of(Long.parseLong(pid)).orElseThrow();
		// its first sleep
		Await.within(Duration.ofSeconds(5))
			.every(Duration.ofMillis(20))
			.holds(() -> handle.children().findAny().isPresent());
		Daemon daemon = new Daemon(handle.pid(), handle.info().startInstant(), handle.children().toList());
		this.daemons.add(daemon);
		return daemon;
	}

	/** The daemon, known by pid and start time, and its children when it was found. */
	private record Daemon(long pid, Optional<Instant> started, List<ProcessHandle> children) {

		boolean isAlive() {
			Optional<ProcessHandle> handle = ProcessHandle.of(this.pid);
			return handle.isPresent() && handle.get().isAlive() && Fixtures.isLive(this.pid)
					&& handle.get().info().startInstant().equals(this.started);
		}

		void kill() {
			if (isAlive()) {
				ProcessHandle.of(this.pid).ifPresent(ProcessHandle::destroyForcibly);
			}
			this.children.forEach(ProcessHandle::destroyForcibly);
		}

	}

}

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
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.core.server.ExitCause;
import dev.mcpstdio.core.server.StdioServerProcess.StopResult;
import dev.mcpstdio.core.tree.ProcessMarkers;
import dev.mcpstdio.lifecycle.forked.ForkedMcpApplication;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.ContainerEngines;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for servers run as containers ({@code docker run -i}) through the real product:
 * the auto-configuration, {@link McpStdioServer}, the orphan guard of a forked JVM and
 * the start-up sweep, with real containers of the test image. Each test labels its
 * containers with its own id and proves that none is left. Skipped without an engine
 * (saying why), failed instead where {@value ContainerEngines#REQUIRE} is set, as in CI.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class ContainerServerTests {

	private final Fixtures fixtures;

	private final ApplicationContextRunner runner = ContainmentContexts.runner();

	private String engine;

	ContainerServerTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@BeforeEach
	void engine() {
		this.engine = ContainerEngines.require();
	}

	/**
	 * The properties of a container server of the test image, labelled and marked for
	 * this test.
	 */
	private List<String> server(String name, String script, String... options) {
		List<String> args = new ArrayList<>(List.of("run", "-i", "--label", this.fixtures.containerLabel(), "-e",
				Fixtures.MARKER + "=" + this.fixtures.id()));
		args.addAll(List.of(options));
		args.addAll(List.of(ContainerEngines.IMAGE, "sh", script));
		String prefix = "mcp.stdio.servers." + name + ".";
		List<String> properties = new ArrayList<>();
		properties.add(prefix + "command=" + this.engine);
		for (int i = 0; i < args.size(); i++) {
			properties.add(prefix + "args[" + i + "]=" + args.get(i));
		}
		properties.add(prefix + "env." + Fixtures.MARKER + "=" + this.fixtures.id());
		String containersConf = System.getenv("CONTAINERS_CONF");
		if (containersConf != null) {
			// podman's configuration, which the allow-list of the server's environment
			// omits
			properties.add(prefix + "env.CONTAINERS_CONF=" + containersConf);
		}
		return properties;
	}

	@Test
	void anEofHonouringContainerServerStopsCleanAndLeavesNothing() {
		this.runner.withPropertyValues(server("polite", "/srv/echo.sh", "--rm").toArray(String[]::new))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				McpStdioServer server = context.getBean(McpStdioServers.class).get("polite");
				assertThat(server.state()).isEqualTo(ServerState.RUNNING);
				assertThat(server.isInitialized()).isTrue();
				assertThat(server.definition().spec().commandLine()).as("the user's command, never our additions")
					.doesNotContain("dev.mcpstdio", "--cidfile", "MCP_STDIO_INSTANCE");
				assertThat(ContainerEngines.containers(this.fixtures.id())).hasSize(1);
				StopResult result = server.stopServer();
				assertThat(result).isNotNull();
				System.out.println("EOF-honouring container server stopped through McpStdioServer in "
						+ result.duration().toMillis() + " ms: " + result.outcome());
				assertThat(result.outcome()).isEqualTo(ExitCause.CLEAN);
				assertThat(result.duration()).isLessThan(Duration.ofSeconds(30));
				// the stop returns once the container is gone: nothing to wait for
				assertThat(ContainerEngines.containers(this.fixtures.id())).isEmpty();
			});
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void anEofAndSigtermIgnoringContainerServerIsEndedThroughTheEngine() {
		// no --rm: the stop removes the container whatever the user's options say
		this.runner.withPropertyValues(server("stubborn", "/srv/stubborn.sh").toArray(String[]::new)).run((context) -> {
			assertThat(context).hasNotFailed();
			McpStdioServer server = context.getBean(McpStdioServers.class).get("stubborn");
			assertThat(server.state()).isEqualTo(ServerState.RUNNING);
			assertThat(ContainerEngines.containers(this.fixtures.id())).hasSize(1);
			StopResult result = server.stopServer();
			assertThat(result).isNotNull();
			System.out.println("EOF- and SIGTERM-ignoring container server stopped through McpStdioServer in "
					+ result.duration().toMillis() + " ms: " + result.outcome());
			assertThat(result.outcome()).isIn(ExitCause.TERMINATED, ExitCause.KILLED);
			// stdin-close + terminate, the engine's calls, and a generous margin
			assertThat(result.duration())
				.isLessThan(ContainmentContexts.STDIN_CLOSE.plus(ContainmentContexts.TERMINATE).plusSeconds(25));
			assertThat(ContainerEngines.containers(this.fixtures.id())).isEmpty();
		});
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void closingTheContextEndsEveryContainer() {
		List<String> properties = new ArrayList<>(server("a", "/srv/stubborn.sh", "--rm"));
		properties.addAll(server("b", "/srv/echo.sh"));
		long[] closing = new long[1];
		this.runner.withPropertyValues(properties.toArray(String[]::new)).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(ContainerEngines.containers(this.fixtures.id())).hasSize(2);
			closing[0] = System.nanoTime();
		});
		System.out.println(
				"Context with two container servers closed in " + (System.nanoTime() - closing[0]) / 1_000_000 + " ms");
		assertThat(ContainerEngines.containers(this.fixtures.id())).isEmpty();
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void aContainerWhoseCliIsKilledIsEndedToo() {
		this.runner.withPropertyValues(server("orphaned", "/srv/stubborn.sh").toArray(String[]::new)).run((context) -> {
			assertThat(context).hasNotFailed();
			McpStdioServer server = context.getBean(McpStdioServers.class).get("orphaned");
			ProcessHandle.of(server.pid()).ifPresent(ProcessHandle::destroyForcibly);
			List<String> left = Await.within(Duration.ofSeconds(30))
				.every(Duration.ofMillis(100))
				.value(() -> ContainerEngines.containers(this.fixtures.id()), List::isEmpty);
			assertThat(left).isEmpty();
			assertThat(server.state()).isEqualTo(ServerState.FAILED);
		});
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void startUpRemovesTheContainersOfADeadOwnerBeforeAnyServerStarts() throws Exception {
		Process live = new ProcessBuilder("sleep", "120").start();
		Process dying = new ProcessBuilder("sleep", "120").start();
		try {
			ProcessMarkers.Owner deadOwner = ProcessMarkers.Owner.of(dying.pid());
			dying.destroyForcibly();
			assertThat(dying.waitFor(5, TimeUnit.SECONDS)).isTrue();
			String dead = leftContainer(deadOwner, "left-1");
			String dead2 = leftContainer(deadOwner, "left-2");
			String alive = leftContainer(ProcessMarkers.Owner.of(live.pid()), "kept");
			long begin = System.nanoTime();
			this.runner.withPropertyValues(server("fresh", "/srv/echo.sh", "--rm").toArray(String[]::new))
				.run((context) -> {
					assertThat(context).hasNotFailed();
					System.out.println("Context start with a sweep of 2 containers left by a dead owner: "
							+ (System.nanoTime() - begin) / 1_000_000 + " ms");
					List<String> left = ContainerEngines.containers(this.fixtures.id());
					assertThat(left).doesNotContain(dead, dead2).contains(alive).hasSize(2);
				});
			assertThat(ContainerEngines.containers(this.fixtures.id())).containsExactly(alive);
		}
		finally {
			live.destroyForcibly();
		}
		ContainerEngines.removeAll(this.fixtures.id());
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	/**
	 * Start, detached, a container of the test image labelled as one of ours, owned by a
	 * given JVM; its server has no stdin, stays and ignores SIGTERM.
	 */
	private String leftContainer(ProcessMarkers.Owner owner, String server) {
		ContainerEngines.Result result = ContainerEngines.run(
				List.of(this.engine, "run", "-d", "--label", this.fixtures.containerLabel(), "--label",
						"dev.mcpstdio.server=" + server, "--label", "dev.mcpstdio.owner=" + owner.id(), "--label",
						"dev.mcpstdio.owner-host=" + owner.host(), ContainerEngines.IMAGE, "sh", "/srv/stubborn.sh"),
				Duration.ofSeconds(60));
		assertThat(result.exitCode()).as(result.output()).isZero();
		return result.output().strip();
	}

	@Test
	void killMinus9OfTheJvmEndsItsContainerWithinTheGuardsBound() throws Exception {
		try (ForkedJvm jvm = ContainmentContexts.fork(server("stubborn", "/srv/stubborn.sh"))) {
			assertThat(jvm.awaitLine(Duration.ofSeconds(120))).startsWith(ForkedMcpApplication.READY + " stubborn=");
			assertThat(ContainerEngines.containers(this.fixtures.id())).hasSize(1);
			assertThat(this.fixtures.alive()).as("the CLI and the container's processes").hasSizeGreaterThan(1);
			long begin = System.nanoTime();
			jvm.process().destroyForcibly();
			// the guard's bound, plus the engine's calls (ps, kill, rm)
			Duration bound = ContainmentContexts.guardBound().plusSeconds(10);
			List<String> left = Await.within(bound.minusNanos(System.nanoTime() - begin))
				.every(Duration.ofMillis(50))
				.value(() -> ContainerEngines.containers(this.fixtures.id()), List::isEmpty);
			long took = (System.nanoTime() - begin) / 1_000_000;
			System.out.println("kill -9 of the JVM to its container gone: " + took + " ms");
			assertThat(left).as(() -> String.join("\n", jvm.output())).isEmpty();
			// nor its cidfile: the guard removes the directory of its scripts after them
			List<Path> cidfiles = Await.within(Duration.ofSeconds(10))
				.every(Duration.ofMillis(50))
				.value(() -> cidfilesOf(jvm.process().pid()), List::isEmpty);
			assertThat(cidfiles).isEmpty();
		}
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	/**
	 * The cidfile directories of a JVM's container starts, in its guard's directories.
	 */
	private static List<Path> cidfilesOf(long jvmPid) {
		List<Path> found = new ArrayList<>();
		try (DirectoryStream<Path> guards = Files.newDirectoryStream(Path.of(System.getProperty("java.io.tmpdir")),
				"mcp-stdio-guard-*")) {
			for (Path guard : guards) {
				try (DirectoryStream<Path> starts = Files.newDirectoryStream(guard, "mcp-stdio-" + jvmPid + ".*")) {
					starts.forEach(found::add);
				}
				catch (IOException ex) {
					// removed meanwhile
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return found;
	}

}

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
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import dev.mcpstdio.core.MessageListener;
import dev.mcpstdio.core.StdioServerProcess;
import dev.mcpstdio.core.StdioServerSpec;
import dev.mcpstdio.lifecycle.RestartPolicy.Mode;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.PidThief;
import dev.mcpstdio.test.PidThief.Stranger;
import dev.mcpstdio.test.PidThief.Target;
import dev.mcpstdio.test.TestHost;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pid-reuse attack against a stop and a restart, for real: a server's root exits
 * while its children hold its stdout, and the instant the JDK has reaped it a stranger
 * (no marker, leading a session and group of the root's id) takes its pid. Whatever ends
 * the server's leftovers then must end its marked children and never signal the stranger.
 *
 * @author mcp-stdio authors
 */
class PidReuseAttackTests {

	private static final Log logger = LogFactory.getLog(PidReuseAttackTests.class);

	/** Attacks that must land (the stranger got the root's pid) per path. */
	private static final int LANDED = 20;

	/** Tries per path: another process may take the pid first. */
	private static final int TRIES = 60;

	private final Fixtures fixtures = new Fixtures();

	private final List<Stranger> strangers = new ArrayList<>();

	private final List<McpStdioServer> servers = new ArrayList<>();

	@TempDir
	Path exits;

	@BeforeEach
	void attackPossible() {
		PidThief.requireCapability();
	}

	@AfterEach
	void cleanUp() {
		Fixtures.cleanUp(this.servers, McpStdioServer::stopServer, this.fixtures::killLeftovers);
		this.strangers.forEach(Stranger::end);
	}

	@Test
	void aStopAfterTheRootsExitNeverSignalsAStrangerThatTookItsPid() throws Exception {
		int landed = 0;
		int signalled = 0;
		for (int i = 0; i < TRIES && landed < LANDED; i++) {
			// every other server's children stay in its group and session, holding the
			// root's pid until the clean-up ends them
			boolean detached = i % 2 == 0;
			StdioServerProcess server = TestHost.shared()
				.start(spec("victim", "0", detached ? "detach" : "stay"), MessageListener.NONE);
			List<ProcessHandle> children = childrenOf(server.pid(), 2);
			Optional<Stranger> stranger;
			try (PidThief thief = PidThief.lieInWait(this.fixtures,
					List.of(new Target(server.pid(), detached ? List.of() : children)))) {
				exit(server.pid());
				stranger = thief.stranger(Duration.ofSeconds(20));
			}
			server.stop();
			awaitGone(children);
			if (stranger.isPresent()) {
				landed++;
				signalled += survived(stranger.get()) ? 0 : 1;
			}
		}
		logger.info("pid-reuse attack on a stop: " + landed + " landed, " + signalled + " strangers signalled");
		assertThat(landed).as("attacks that landed").isGreaterThanOrEqualTo(LANDED);
		assertThat(signalled).as("strangers signalled").isZero();
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void aRestartNeverSignalsAStrangerThatTookTheRootsPid() throws Exception {
		McpStdioServer server = new McpStdioServer(new McpStdioServerDefinition(spec("victim", "3", "detach"), true,
				false, Duration.ofSeconds(20), new RestartPolicy(Mode.ON_FAILURE, 1000, Duration.ofMinutes(10),
						Duration.ofMillis(10), Duration.ofMillis(10))),
				TestHost.shared());
		this.servers.add(server);
		server.startServer();
		int landed = 0;
		int signalled = 0;
		for (int i = 0; i < TRIES && landed < LANDED; i++) {
			long root = server.pid();
			long generation = server.clientConnection().generation();
			List<ProcessHandle> children = childrenOf(root, 2);
			Optional<Stranger> stranger;
			try (PidThief thief = PidThief.lieInWait(this.fixtures, List.of(new Target(root, List.of())))) {
				exit(root);
				stranger = thief.stranger(Duration.ofSeconds(20));
			}
			await(() -> server.clientConnection().generation() > generation && server.state() == ServerState.RUNNING);
			awaitGone(children);
			if (stranger.isPresent()) {
				landed++;
				signalled += survived(stranger.get()) ? 0 : 1;
			}
		}
		logger.info("pid-reuse attack on a restart: " + landed + " landed, " + signalled + " strangers signalled");
		assertThat(landed).as("attacks that landed").isGreaterThanOrEqualTo(LANDED);
		assertThat(signalled).as("strangers signalled").isZero();
		assertThat(server.restarts()).isGreaterThanOrEqualTo(landed);
		server.stopServer();
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	/**
	 * A server that exits with the given code once told, its children detached or not.
	 */
	private StdioServerSpec spec(String name, String exitCode, String children) {
		return this.fixtures.spec(name, "exits-on-file.sh", this.exits.toString(), exitCode, children);
	}

	/** Tell a root to exit, and forget it once it did: its pid may come again. */
	private void exit(long root) throws IOException {
		// the handle knows the root's start time: another process with its pid is not it
		ProcessHandle handle = ProcessHandle.of(root).orElseThrow();
		Path file = this.exits.resolve(Long.toString(root));
		Files.createFile(file);
		await(() -> !handle.isAlive());
		Files.delete(file);
	}

	/**
	 * Return whether the stranger is still alive, untouched, once whatever ends the
	 * server's leftovers has had time to look again.
	 */
	private boolean survived(Stranger stranger) {
		this.strangers.add(stranger);
		// two looks of the exit watcher and more: a late signal would land by then
		Fixtures.sleep(300);
		boolean alive = stranger.isAlive();
		stranger.end();
		return alive;
	}

	/**
	 * The children of a process, as handles: each knows its start time, so a reused pid
	 * is not taken for it.
	 */
	private static List<ProcessHandle> childrenOf(long pid, int count) {
		await(() -> ProcessHandle.of(pid).map((h) -> h.children().count() >= count).orElse(false));
		return ProcessHandle.of(pid).orElseThrow().children().toList();
	}

	private static void awaitGone(List<ProcessHandle> processes) {
		await(() -> processes.stream().noneMatch(ProcessHandle::isAlive));
	}

	private static void await(BooleanSupplier condition) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
			Fixtures.sleep(5);
		}
		assertThat(condition.getAsBoolean()).as("condition within 30s").isTrue();
	}

}

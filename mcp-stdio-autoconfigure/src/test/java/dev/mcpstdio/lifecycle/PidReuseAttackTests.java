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

import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.server.MessageListener;
import dev.mcpstdio.core.server.ShutdownTimeouts;
import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.lifecycle.RestartPolicy.Mode;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.test.PidThief;
import dev.mcpstdio.test.PidThief.Stranger;
import dev.mcpstdio.test.PidThief.Target;
import dev.mcpstdio.test.TestHost;
import dev.mcpstdio.test.TickThief;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
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
@ExtendWith(NoProcessLeft.class)
class PidReuseAttackTests {

	private static final Log logger = LogFactory.getLog(PidReuseAttackTests.class);

	/** Attacks that must land (the stranger got the root's pid) per path. */
	private static final int LANDED = 20;

	/**
	 * Tries per path: another process may take the pid first, or the thief may miss the
	 * moment (a restart's attack lands in about one try of four when the class runs
	 * alone, 14 to 18 of 60); the loop ends once {@link #LANDED} have.
	 */
	private static final int TRIES = 200;

	/** Strangers that must get a grandchild's pid and start time, over all stops. */
	private static final int TICK_LANDED = 15;

	/**
	 * Stops of a hostile server at most, each a second of attacks: a few land per stop,
	 * fewer on a loaded machine.
	 */
	private static final int TICK_STOPS = 80;

	private final Fixtures fixtures;

	private final List<Stranger> strangers = new ArrayList<>();

	private final List<McpStdioServer> servers = new ArrayList<>();

	@TempDir
	Path exits;

	PidReuseAttackTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@BeforeEach
	void attackPossible() {
		PidThief.requireCapability();
	}

	@AfterEach
	void cleanUp() {
		Fixtures.cleanUp(this.servers, McpStdioServer::stopServer);
		this.strangers.forEach(Stranger::end);
	}

	@Test
	// up to 200 attacks
	@Timeout(value = 10, unit = TimeUnit.MINUTES)
	void aStopAfterTheRootsExitNeverSignalsAStrangerThatTookItsPid() throws Exception {
		int landed = 0;
		for (int i = 0; i < TRIES && landed < LANDED; i++) {
			// every other server's children stay in its group and session, holding the
			// root's pid until the clean-up ends them
			boolean detached = i % 2 == 0;
			StdioServerProcess server = TestHost.shared()
				.start(spec("victim", "0", detached ? "detach" : "stay"), MessageListener.NONE);
			List<ProcessHandle> children = Fixtures.childrenOf(server.pid(), 2);
			Optional<Stranger> stranger;
			try (PidThief thief = PidThief.lieInWait(this.fixtures,
					List.of(new Target(server.pid(), detached ? List.of() : children)))) {
				exit(server.pid());
				stranger = thief.stranger(Duration.ofSeconds(20));
			}
			server.stop();
			Fixtures.awaitEnded(children);
			if (stranger.isPresent()) {
				landed++;
				this.strangers.add(stranger.get());
			}
		}
		int signalled = signalled();
		logger.info("pid-reuse attack on a stop: " + landed + " landed, " + signalled + " strangers signalled");
		assertThat(landed).as("attacks that landed").isGreaterThanOrEqualTo(LANDED);
		assertThat(signalled).as("strangers signalled").isZero();
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	// up to 200 attacks
	@Timeout(value = 10, unit = TimeUnit.MINUTES)
	void aRestartNeverSignalsAStrangerThatTookTheRootsPid() throws Exception {
		McpStdioServer server = new McpStdioServer(SpecDefaults.definition(
				spec("victim", "3", "detach").toBuilder().startupTimeout(Duration.ofSeconds(20)).build(),
				new RestartPolicy(Mode.ON_FAILURE, 1000, Duration.ofMinutes(10), Duration.ofMillis(10),
						Duration.ofMillis(10))),
				TestHost.shared());
		this.servers.add(server);
		server.startServer();
		int landed = 0;
		for (int i = 0; i < TRIES && landed < LANDED; i++) {
			long root = server.pid();
			long generation = server.clientConnection().generation();
			List<ProcessHandle> children = Fixtures.childrenOf(root, 2);
			Optional<Stranger> stranger;
			try (PidThief thief = PidThief.lieInWait(this.fixtures, List.of(new Target(root, List.of())))) {
				exit(root);
				stranger = thief.stranger(Duration.ofSeconds(20));
			}
			Await.that("restarted",
					() -> server.clientConnection().generation() > generation && server.state() == ServerState.RUNNING);
			Fixtures.awaitEnded(children);
			if (stranger.isPresent()) {
				landed++;
				this.strangers.add(stranger.get());
			}
		}
		int signalled = signalled();
		logger.info("pid-reuse attack on a restart: " + landed + " landed, " + signalled + " strangers signalled");
		assertThat(landed).as("attacks that landed").isGreaterThanOrEqualTo(LANDED);
		assertThat(signalled).as("strangers signalled").isZero();
		assertThat(server.restarts()).isGreaterThanOrEqualTo(landed);
		server.stopServer();
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	// up to 80 stops of a second and a half
	@Timeout(value = 10, unit = TimeUnit.MINUTES)
	void aStopNeverSignalsAStrangerThatTookAGrandchildsPidInTheTickItWasBornIn() throws Exception {
		// the server's child ignores SIGTERM and, from the stop's SIGTERM on, forks
		// short-lived grandchildren; a stranger takes the pid of each that ends in the
		// clock tick it was born in, so that pid and start time are the grandchild's
		StdioServerSpec spec = this.fixtures
			.spec("hostile", "forks-in-tick.sh", this.exits.resolve("thief.fifo").toString(), "term")
			.withShutdown(new ShutdownTimeouts(Duration.ofMillis(500), Duration.ofMillis(100), Duration.ofSeconds(1)));
		int landed = 0;
		int signalled = 0;
		int stops = 0;
		try (TickThief thief = TickThief.start(this.fixtures, this.exits)) {
			int seen = 0;
			for (; stops < TICK_STOPS && landed < TICK_LANDED; stops++) {
				StdioServerProcess server = TestHost.shared().start(spec, MessageListener.NONE);
				List<ProcessHandle> children = Fixtures.childrenOf(server.pid(), 1);
				server.stop();
				Fixtures.awaitEnded(children);
				List<TickThief.Theft> thefts = thief.thefts();
				for (TickThief.Theft theft : thefts.subList(seen, thefts.size())) {
					landed += theft.landed() ? 1 : 0;
					signalled += theft.stranger().isAlive() ? 0 : 1;
					theft.stranger().end();
				}
				seen = thefts.size();
			}
		}
		logger.info("pid-reuse attack within one tick on a stop: " + stops + " stops, " + landed + " landed, "
				+ signalled + " strangers signalled");
		assertThat(landed).as("attacks that landed").isGreaterThanOrEqualTo(TICK_LANDED);
		assertThat(signalled).as("strangers signalled").isZero();
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
		Await.that("the root exited", () -> !handle.isAlive());
		Files.delete(file);
	}

	/**
	 * Count the strangers that did not survive untouched, once whatever ends a server's
	 * leftovers has had time to look again after the last attack, then end them: each
	 * stranger is checked at least that long after its own attack, most for the rest of
	 * the test (whatever came later must not signal it either).
	 */
	private int signalled() {
		// two looks of the exit watcher and more: a late signal would land by then
		Fixtures.sleep(300);
		int signalled = (int) this.strangers.stream().filter((stranger) -> !stranger.isAlive()).count();
		this.strangers.forEach(Stranger::end);
		return signalled;
	}

}

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

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.McpServerExitedException;
import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.server.ExitCause;
import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.lifecycle.RestartPolicy.Mode;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.test.TestHost;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the restart policy of {@link McpStdioServer} with real processes.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class McpStdioServerRestartTests {

	private final Fixtures fixtures;

	private final List<McpStdioServer> servers = new ArrayList<>();

	McpStdioServerRestartTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@AfterEach
	void cleanUp() {
		Fixtures.cleanUp(this.servers, McpStdioServer::stopServer);
	}

	@Test
	void onFailureBringsBackAServerKilledByHand() {
		McpStdioServer server = server(this.fixtures.spec("files", "echo.sh"),
				policy(Mode.ON_FAILURE, 3, Duration.ofMillis(100)));
		server.startServer();
		long first = server.pid();
		// the process, not its pid: a pid can come back at once (the pid-reuse
		// tests beside this one reset the kernel's next pid)
		StdioServerProcess firstProcess = server.process();
		assertThat(server.isInitialized()).isTrue();
		ProcessHandle.of(first).orElseThrow().destroyForcibly();
		Await.that("restarted and initialized", () -> server.state() == ServerState.RUNNING
				&& server.process() != firstProcess && server.isInitialized());
		assertThat(server.restarts()).isEqualTo(1);
		assertThat(server.lastExit().exitCode()).isEqualTo(137);
		assertThat(server.exits(ExitCause.UNEXPECTED)).isEqualTo(1);
		assertThat(server.request("r1", "{\"jsonrpc\":\"2.0\",\"id\":\"r1\",\"method\":\"ping\"}"))
			.succeedsWithin(Duration.ofSeconds(10))
			.asString()
			.contains("\"echo\":\"ping\"");
		server.stopServer();
		assertThat(server.state()).isEqualTo(ServerState.STOPPED);
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void aRequestMadeWhileRestartingGoesToTheNewProcessOnceItIsInitialized() {
		McpStdioServer server = server(this.fixtures.spec("files", "echo.sh"),
				policy(Mode.ON_FAILURE, 3, Duration.ofSeconds(1)));
		server.startServer();
		long first = server.pid();
		StdioServerProcess firstProcess = server.process();
		ProcessHandle.of(first).orElseThrow().destroyForcibly();
		Await.that("RESTARTING", () -> server.state() == ServerState.RESTARTING);
		// during the backoff: it waits for the new process and its handshake
		assertThat(server.request("r1", "{\"jsonrpc\":\"2.0\",\"id\":\"r1\",\"method\":\"ping\"}"))
			.succeedsWithin(Duration.ofSeconds(15))
			.asString()
			.contains("\"echo\":\"ping\"");
		assertThat(server.clientConnection().generation()).isEqualTo(2);
		assertThat(server.isInitialized()).isTrue();
		assertThat(server.process()).isNotSameAs(firstProcess);
		server.stopServer();
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void aRequestMadeWhileRestartingFailsNamingTheLastExitWhenThePolicyGivesUp() throws Exception {
		Path firstStart = Files.createTempFile("first-start", "");
		Files.delete(firstStart);
		try {
			// the first start answers, then exits 7; every later start exits 7 at once
			McpStdioServer server = server(spec("crashy", "7", firstStart.toString()),
					policy(Mode.ON_FAILURE, 1, Duration.ofSeconds(1)));
			server.startServer();
			Await.that("RESTARTING", () -> server.state() == ServerState.RESTARTING);
			long begin = System.nanoTime();
			assertThat(server.request("r1", "{\"jsonrpc\":\"2.0\",\"id\":\"r1\",\"method\":\"ping\"}"))
				.failsWithin(Duration.ofSeconds(15))
				.withThrowableOfType(ExecutionException.class)
				.havingCause()
				.isInstanceOf(McpServerExitedException.class)
				.withMessageContaining("exited unexpectedly with exit code 7; stderr: crashing at once");
			assertThat(Duration.ofNanos(System.nanoTime() - begin)).isLessThan(Duration.ofSeconds(15));
			assertThat(server.state()).isEqualTo(ServerState.FAILED);
			assertThat(server.clientConnection().generation()).isEqualTo(2);
			this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
		}
		finally {
			Files.deleteIfExists(firstStart);
		}
	}

	@Test
	void aServerThatAlwaysCrashesStopsAfterMaxRestartsWithExponentialBackoff() {
		// Long enough that a machine firing late cannot pass for the next doubling
		Duration initial = Duration.ofSeconds(1);
		McpStdioServer server = server(spec("crashy", "7"), policy(Mode.ON_FAILURE, 3, initial));
		Gaps gaps = new Gaps();
		server.addListener(gaps);
		server.startServer();
		Await.that("FAILED", () -> server.state() == ServerState.FAILED);
		assertThat(server.restarts()).isEqualTo(3);
		assertThat(server.exits(ExitCause.UNEXPECTED)).isEqualTo(4);
		assertThat(server.lastExit().exitCode()).isEqualTo(7);
		assertDoublingBackoff(gaps.millis(), initial, 3);
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void restartsThatCrashDuringTheHandshakeCountAsAttempts() throws Exception {
		Path firstStart = Files.createTempFile("first-start", "");
		Files.delete(firstStart);
		try {
			Duration initial = Duration.ofMillis(200);
			McpStdioServer server = server(spec("crashy", "7", firstStart.toString()),
					policy(Mode.ON_FAILURE, 3, initial));
			Gaps gaps = new Gaps();
			server.addListener(gaps);
			server.startServer();
			Await.that("FAILED after three restarts",
					() -> server.state() == ServerState.FAILED && server.restarts() == 3);
			Fixtures.sleep(1000);
			assertThat(server.state()).isEqualTo(ServerState.FAILED);
			assertThat(server.restarts()).isEqualTo(3);
			assertThat(server.exits(ExitCause.UNEXPECTED)).isEqualTo(4);
			assertNeverEarly(gaps.millis(), initial, 3);
			this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
		}
		finally {
			Files.deleteIfExists(firstStart);
		}
	}

	@Test
	void aStopThatComesWhileARestartEndsThePreviousProcessWins() throws Exception {
		// Each process leaves a child deaf to SIGTERM: ending it takes the terminate
		// timeout, during which the restart waits for it, outside the server's lock
		StdioServerSpec spec = SpecDefaults.of("stubborn", "sh", Fixtures.script("exits-leaving-stubborn-child.sh"))
			.withEnv(Map.of(Fixtures.MARKER, this.fixtures.id()))
			.withShutdown(new dev.mcpstdio.core.server.ShutdownTimeouts(Duration.ofMillis(500), Duration.ofMillis(500),
					Duration.ofSeconds(2)));
		McpStdioServer server = server(spec, policy(Mode.ON_FAILURE, 3, Duration.ofMillis(10)));
		server.startServer();
		// The restart has begun: it is ending the first process
		Await.that("restarted once", () -> server.restarts() == 1);
		long begin = System.nanoTime();
		server.stopServer();
		Duration took = Duration.ofNanos(System.nanoTime() - begin);
		// The stop joined the end of the first process; no second process ever ran
		assertThat(server.clientConnection().generation()).isEqualTo(1);
		assertThat(server.state()).isEqualTo(ServerState.STOPPED);
		assertThat(took).isLessThan(Duration.ofSeconds(10));
		Fixtures.sleep(300);
		assertThat(server.clientConnection().generation()).isEqualTo(1);
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void alwaysRestartsACleanExitToo() {
		McpStdioServer server = server(spec("clean", "0"), policy(Mode.ALWAYS, 2, Duration.ofMillis(100)));
		server.startServer();
		Await.that("FAILED", () -> server.state() == ServerState.FAILED);
		assertThat(server.restarts()).isEqualTo(2);
		assertThat(server.lastExit().exitCode()).isZero();
		assertThat(server.exits(ExitCause.UNEXPECTED)).isEqualTo(3);
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void onFailureDoesNotRestartACleanExit() {
		McpStdioServer server = server(spec("clean", "0"), policy(Mode.ON_FAILURE, 2, Duration.ofMillis(100)));
		server.startServer();
		Await.that("FAILED", () -> server.state() == ServerState.FAILED);
		Fixtures.sleep(500);
		assertThat(server.restarts()).isZero();
		assertThat(server.state()).isEqualTo(ServerState.FAILED);
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void neverLeavesAKilledServerFailed() {
		McpStdioServer server = server(this.fixtures.spec("files", "echo.sh"), SpecDefaults.restart());
		server.startServer();
		long first = server.pid();
		ProcessHandle.of(first).orElseThrow().destroyForcibly();
		Await.that("FAILED", () -> server.state() == ServerState.FAILED);
		Fixtures.sleep(500);
		assertThat(server.state()).isEqualTo(ServerState.FAILED);
		assertThat(server.restarts()).isZero();
		assertThat(server.pid()).isNull();
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	/**
	 * Assert that each gap is its doubled backoff: never early (the scheduler does not
	 * fire early), and late by less than the backoff itself, so that a constant or a
	 * non-doubling backoff fails while a loaded machine that fires late does not.
	 */
	private static void assertDoublingBackoff(List<Long> gaps, Duration initial, int restarts) {
		assertNeverEarly(gaps, initial, restarts);
		for (int i = 0; i < gaps.size(); i++) {
			long expected = initial.toMillis() << i;
			assertThat(gaps.get(i)).as("gap before restart %d of %s: less than the next doubling", i + 1, gaps)
				.isLessThan(2 * expected);
		}
	}

	private static void assertNeverEarly(List<Long> gaps, Duration initial, int restarts) {
		assertThat(gaps).hasSize(restarts);
		for (int i = 0; i < gaps.size(); i++) {
			long expected = initial.toMillis() << i;
			// 20 ms for the clocks of the scheduler and of this listener
			assertThat(gaps.get(i)).as("gap before restart %d of %s: at least the backoff", i + 1, gaps)
				.isGreaterThanOrEqualTo(expected - 20);
		}
	}

	private StdioServerSpec spec(String name, String... args) {
		List<String> command = new ArrayList<>();
		command.add(Fixtures.script("exits-after-init.sh"));
		command.addAll(List.of(args));
		return SpecDefaults.of(name, "sh", command.toArray(String[]::new))
			.withEnv(Map.of(Fixtures.MARKER, this.fixtures.id()))
			.withShutdown(Fixtures.FAST);
	}

	private McpStdioServer server(StdioServerSpec spec, RestartPolicy policy) {
		McpStdioServer server = new McpStdioServer(
				SpecDefaults.definition(spec.toBuilder().startupTimeout(Duration.ofSeconds(10)).build(), policy),
				TestHost.shared());
		this.servers.add(server);
		return server;
	}

	private static RestartPolicy policy(Mode mode, int maxRestarts, Duration initial) {
		return new RestartPolicy(mode, maxRestarts, Duration.ofMinutes(1), initial, Duration.ofSeconds(5));
	}

	/** The time from each exit scheduling a restart to the restart's start. */
	private static final class Gaps implements ServerListener {

		private final List<Long> millis = new ArrayList<>();

		private long restartingAt;

		@Override
		public synchronized void stateChanged(McpStdioServer server, ServerState state) {
			if (state == ServerState.RESTARTING) {
				this.restartingAt = System.nanoTime();
			}
			else if (state == ServerState.STARTING && this.restartingAt != 0) {
				this.millis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - this.restartingAt));
				this.restartingAt = 0;
			}
		}

		synchronized List<Long> millis() {
			return new ArrayList<>(this.millis);
		}

	}

}

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
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.mcpstdio.McpServerExitedException;
import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.Demand;
import dev.mcpstdio.lifecycle.RestartPolicy.Mode;
import ch.qos.logback.classic.Level;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.LogCapture;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.test.TestHost;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Tests for {@link ServerController}: its starts, the wait of sends and the restarts.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class ServerControllerTests {

	private static final Duration LONG = Duration.ofMinutes(5);

	private static final String PING = "{\"jsonrpc\":\"2.0\",\"id\":\"r1\",\"method\":\"ping\"}";

	private final Fixtures fixtures;

	private final List<McpStdioServer> servers = new ArrayList<>();

	@TempDir
	private Path dir;

	ServerControllerTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@AfterEach
	void cleanUp() {
		Fixtures.cleanUp(this.servers, McpStdioServer::stopServer);
	}

	// Starts

	@Test
	void callersJoinTheOneStartUnderWay() throws Exception {
		McpStdioServer server = server(perStart("hold"), LONG);
		CompletableFuture<Object> first = waiting(server::startServer);
		CompletableFuture<Object> second = waiting(server::startServer);
		awaitStarts(1);
		Thread.sleep(200);
		assertThat(first).isNotDone();
		assertThat(second).isNotDone();
		go();
		CompletableFuture.allOf(first, second).get(30, TimeUnit.SECONDS);
		assertThat(server.state()).isEqualTo(ServerState.RUNNING);
		assertThat(server.isInitialized()).isTrue();
		assertThat(starts()).isEqualTo(1);
		assertThat(server.clientConnection().generation()).isEqualTo(1);
	}

	@Test
	void theLifecyclesStartIsBegunOnceUntilAStopForgetsIt() throws Exception {
		McpStdioServer server = server(this.fixtures.spec("files", "echo.sh"), LONG);
		CompletableFuture<Void> begun = server.startInBackground();
		assertThat(server.startInBackground()).isSameAs(begun);
		begun.get(30, TimeUnit.SECONDS);
		server.clientConnection().joinStart();
		assertThat(this.fixtures.started()).as("joined, not started again").hasSize(1);
		assertThat(server.clientConnection().generation()).isEqualTo(1);
		server.stopServer();
		CompletableFuture<Void> again = server.startInBackground();
		assertThat(again).isNotSameAs(begun);
		again.get(30, TimeUnit.SECONDS);
		assertThat(server.clientConnection().generation()).isEqualTo(2);
		assertThat(this.fixtures.started()).hasSize(2);
	}

	@Test
	void aClientJoiningAFailedLifecycleStartIsToldWhyAndStartsNothing() throws IOException {
		McpStdioServer server = server(perStart("fail"), LONG);
		go();
		server.startInBackground();
		Throwable failure = catchThrowable(server.clientConnection()::joinStart);
		assertThat(failure).isInstanceOf(McpServerExitedException.class)
			.hasMessageContaining("exited unexpectedly with exit code 7")
			.hasMessageContaining("failing as told");
		assertThat(server.lastExit().message()).isEqualTo(failure.getMessage());
		// and again: told why, nothing started
		assertThatExceptionOfType(McpServerExitedException.class).isThrownBy(server.clientConnection()::joinStart)
			.withMessage(failure.getMessage());
		assertThat(server.state()).isEqualTo(ServerState.FAILED);
		assertThat(starts()).isEqualTo(1);
		assertThat(server.clientConnection().generation()).isEqualTo(1);
	}

	@Test
	void aLazyServerIsMadeIdleInsteadOfStarted() {
		McpStdioServer server = server(this.fixtures.spec("lazy", "echo.sh"), LONG, true,
				new Demand(StartMode.LAZY, null));
		assertThat(server.startInBackground()).succeedsWithin(Duration.ofSeconds(30));
		assertThat(server.state()).isEqualTo(ServerState.IDLE);
		server.stopServer();
		assertThat(server.state()).isEqualTo(ServerState.STOPPED);
		// the lifecycle's next start: idle again, still no process
		assertThat(server.startInBackground()).succeedsWithin(Duration.ofSeconds(30));
		assertThat(server.state()).isEqualTo(ServerState.IDLE);
		assertThat(server.process()).isNull();
		this.fixtures.assertNeverStarted();
	}

	@Test
	void onlyAnIdleServerIsStartedOnDemand() throws Exception {
		McpStdioServer server = server(this.fixtures.spec("lazy", "echo.sh"), LONG, true,
				new Demand(StartMode.LAZY, null));
		server.stopServer();
		server.clientConnection().startOnDemand();
		assertThat(server.state()).as("stopped: stays stopped").isEqualTo(ServerState.STOPPED);
		this.fixtures.assertNeverStarted();
		server.startInBackground().get(30, TimeUnit.SECONDS);
		assertThat(server.state()).isEqualTo(ServerState.IDLE);
		server.clientConnection().startOnDemand();
		assertThat(server.state()).isEqualTo(ServerState.RUNNING);
		assertThat(server.isInitialized()).isTrue();
		assertThat(this.fixtures.started()).hasSize(1);
		// running: not started again
		server.clientConnection().startOnDemand();
		assertThat(this.fixtures.started()).hasSize(1);
		assertThat(server.clientConnection().generation()).isEqualTo(1);
	}

	@Test
	void aDisabledServerIsNotStarted() {
		McpStdioServer server = server(this.fixtures.spec("off", "echo.sh"), LONG, false, SpecDefaults.demand());
		assertThatExceptionOfType(McpServerNotRunningException.class).isThrownBy(server::startServer)
			.withMessageContaining("is disabled");
		assertThatExceptionOfType(McpServerNotRunningException.class).isThrownBy(server.clientConnection()::joinStart)
			.withMessageContaining("is disabled");
		server.start();
		assertThat(server.state()).isEqualTo(ServerState.DISABLED);
		this.fixtures.assertNeverStarted();
	}

	// The wait of a send for a server between processes

	@Test
	void aSettledServerIsNotWaitedFor() {
		McpStdioServer server = server(this.fixtures.spec("files", "echo.sh"), LONG);
		assertThat(timed(server.clientConnection()::awaitSettled)).as("never started")
			.isLessThan(Duration.ofSeconds(10));
		server.startServer();
		assertThat(timed(server.clientConnection()::awaitSettled)).as("running").isLessThan(Duration.ofSeconds(10));
	}

	@Test
	void aSendWaitsForAStartAndEndsWhenItSettles() throws Exception {
		McpStdioServer server = server(perStart("hold"), LONG);
		server.startInBackground();
		awaitStarts(1);
		CompletableFuture<Object> waited = waiting(server.clientConnection()::awaitSettled);
		CompletableFuture<String> sent = send(server);
		Thread.sleep(200);
		assertThat(waited).as("still settling").isNotDone();
		assertThat(sent).as("still settling").isNotDone();
		go();
		waited.get(30, TimeUnit.SECONDS);
		assertThat(server.isInitialized()).isTrue();
		assertThat(sent).succeedsWithin(Duration.ofSeconds(30)).asString().contains("\"echo\":\"ping\"");
		assertThat(starts()).isEqualTo(1);
	}

	@Test
	void aStartIsWaitedForAtMostItsStartupTimeout() throws Exception {
		Duration startupTimeout = Duration.ofSeconds(1);
		McpStdioServer server = server(perStart("mute"), startupTimeout);
		long begin = System.nanoTime();
		server.startInBackground();
		awaitStarts(1);
		Duration waited = timed(server.clientConnection()::awaitSettled);
		assertThat(Duration.ofNanos(System.nanoTime() - begin)).isGreaterThanOrEqualTo(startupTimeout);
		assertThat(waited).isLessThan(Duration.ofSeconds(20));
		Await.that("the start failed", () -> server.state() == ServerState.FAILED);
		assertThat(server.lastFailure()).contains("did not answer initialize within 1s");
	}

	@Test
	void aRestartIsWaitedForItsBackoffPlusItsStartupTimeout() {
		Duration backoff = Duration.ofMillis(1500);
		// long enough that the restart has begun by the end of the wait on a busy machine
		Duration startupTimeout = Duration.ofSeconds(3);
		// the restart's process never answers initialize
		McpStdioServer server = server(perStart("serve", "mute"), startupTimeout, policy(1, backoff));
		FirstEntered states = new FirstEntered();
		server.addListener(states);
		server.startServer();
		kill(server.process());
		Await.that("RESTARTING", () -> states.entered(ServerState.RESTARTING));
		server.clientConnection().awaitSettled();
		Duration waited = Duration.ofNanos(System.nanoTime() - states.at(ServerState.RESTARTING));
		// 50 ms for the clocks of the wait and of the listener
		assertThat(waited).isGreaterThanOrEqualTo(backoff.plus(startupTimeout).minusMillis(50))
			.isLessThan(Duration.ofSeconds(20));
	}

	@Test
	void anInterruptEndsTheWaitAndIsKept() throws Exception {
		McpStdioServer server = server(perStart("hold"), LONG);
		server.startInBackground();
		awaitStarts(1);
		AtomicBoolean interrupted = new AtomicBoolean();
		Thread thread = new Thread(() -> {
			server.clientConnection().awaitSettled();
			interrupted.set(Thread.currentThread().isInterrupted());
		});
		thread.start();
		Thread.sleep(200);
		thread.interrupt();
		thread.join(30_000);
		assertThat(thread.isAlive()).isFalse();
		assertThat(interrupted).isTrue();
	}

	@Test
	void aSendWaitsThroughOneStartNotThroughTheRestartsAfterIt() throws Exception {
		// the restart's process fails once let go; the next one never answers initialize,
		// for 60 s: a send that waited through that start too would wait that long
		McpStdioServer server = server(perStart("serve", "fail", "mute"), Duration.ofSeconds(60),
				policy(5, Duration.ofMillis(500)));
		server.startServer();
		kill(server.process());
		Await.that("RESTARTING", () -> server.state() == ServerState.RESTARTING);
		CompletableFuture<String> sent = send(server);
		Thread.sleep(200);
		assertThat(sent).as("waits for the restart's start").isNotDone();
		awaitStarts(2);
		Thread.sleep(200);
		assertThat(sent).as("waits for the start under way").isNotDone();
		go();
		// at the end of that start, naming its exit
		assertThat(sent).failsWithin(Duration.ofSeconds(30))
			.withThrowableOfType(ExecutionException.class)
			.havingCause()
			.isInstanceOf(McpServerExitedException.class)
			.withMessageContaining("exited unexpectedly with exit code 7; stderr: failing as told");
	}

	// Restarts by the policy. In McpStdioServerRestartTests: an exit the policy does not
	// restart fails the server (onFailureDoesNotRestartACleanExit,
	// neverLeavesAKilledServerFailed), the policy giving up fails the server
	// (aServerThatAlwaysCrashesStopsAfterMaxRestartsWithExponentialBackoff), a restart
	// whose process exits in its handshake is counted
	// (restartsThatCrashDuringTheHandshakeCountAsAttempts)

	@Test
	void anExitThePolicyRestartsIsRestartedByThePolicyAfterItsBackoff() {
		Duration backoff = Duration.ofSeconds(1);
		McpStdioServer server = server(this.fixtures.spec("files", "echo.sh"), LONG, policy(3, backoff));
		// a stop before: the restart is not taken for a start that a stop overtook
		server.startServer();
		server.stopServer();
		server.startServer();
		StdioServerProcess second = server.process();
		FirstEntered states = new FirstEntered();
		server.addListener(states);
		kill(second);
		Await.that("restarted and initialized",
				() -> server.state() == ServerState.RUNNING && server.process() != second && server.isInitialized());
		assertThat(server.restarts()).isEqualTo(1);
		assertThat(server.clientConnection().generation()).isEqualTo(3);
		// 20 ms for the clocks of the scheduler and of the listener
		assertThat(Duration.ofNanos(states.at(ServerState.STARTING) - states.at(ServerState.RESTARTING)))
			.isGreaterThanOrEqualTo(backoff.minusMillis(20));
	}

	@Test
	void aRestartWhoseHandshakeFailsIsRestartedByThePolicy() {
		// a start of the policy's, unlike a caller's, fails into the next restart
		McpStdioServer server = server(perStart("serve", "mute", "serve"), Duration.ofSeconds(1),
				policy(2, Duration.ofMillis(100)));
		server.startServer();
		kill(server.process());
		Await.that("restarted twice and initialized", () -> server.clientConnection().generation() == 3
				&& server.state() == ServerState.RUNNING && server.isInitialized());
		assertThat(server.restarts()).isEqualTo(2);
		assertThat(server.lastFailure()).isNull();
	}

	@Test
	void aRestartThatAStopOrAStartOvertookDoesNotStart() throws Exception {
		Duration backoff = Duration.ofSeconds(5);
		McpStdioServer stopped = server(this.fixtures.spec("stopped", "echo.sh"), LONG, policy(3, backoff));
		McpStdioServer started = server(this.fixtures.spec("started", "echo.sh"), LONG, policy(3, backoff));
		stopped.startServer();
		started.startServer();
		kill(stopped.process());
		kill(started.process());
		Await.that("both RESTARTING",
				() -> stopped.state() == ServerState.RESTARTING && started.state() == ServerState.RESTARTING);
		stopped.stopServer();
		started.startServer();
		assertThat(stopped.state()).isEqualTo(ServerState.STOPPED);
		assertThat(started.clientConnection().generation()).isEqualTo(2);
		// past the backoff
		Thread.sleep(backoff.plusSeconds(1).toMillis());
		assertThat(stopped.state()).isEqualTo(ServerState.STOPPED);
		assertThat(stopped.clientConnection().generation()).isEqualTo(1);
		assertThat(started.state()).isEqualTo(ServerState.RUNNING);
		assertThat(started.clientConnection().generation()).isEqualTo(2);
		assertThat(stopped.restarts() + started.restarts()).isZero();
		assertThat(this.fixtures.started()).hasSize(3);
	}

	@Test
	void aFailedRestartIsCountedAndDoesNotEscape() throws Exception {
		// the restart cannot run the command: its working directory is gone
		Path workingDirectory = Files.createDirectory(this.dir.resolve("work"));
		McpStdioServer server = server(
				this.fixtures.spec("files", "echo.sh").toBuilder().workingDirectory(workingDirectory).build(), LONG,
				policy(3, Duration.ofMillis(100)));
		server.startServer();
		Files.delete(workingDirectory);
		try (LogCapture log = LogCapture.of(ServerController.class.getName())) {
			kill(server.process());
			Await.that("FAILED", () -> server.state() == ServerState.FAILED);
			assertThat(server.restarts()).isEqualTo(1);
			assertThat(server.lastFailure()).isNotNull();
			// caught and logged where the restart ran
			Await.that("the failure logged", () -> !log.messages(Level.WARN).isEmpty());
			assertThat(log.messages(Level.WARN)).singleElement()
				.asString()
				.startsWith("Restart of MCP server 'files' failed: ");
		}
		assertThat(this.fixtures.started()).hasSize(1);
	}

	/** Send a request, and return once the send waits. */
	private CompletableFuture<String> send(McpStdioServer server) {
		CompletableFuture<CompletableFuture<String>> sent = new CompletableFuture<>();
		waiting(() -> sent.complete(server.request("r1", PING))).exceptionally(sent::completeExceptionally);
		return sent.thenCompose((response) -> response);
	}

	/**
	 * Call on a thread of its own, and return once the call waits (or has ended).
	 * @param call what to call
	 * @return how the call ended
	 */
	private static CompletableFuture<Object> waiting(Runnable call) {
		CompletableFuture<Object> ended = new CompletableFuture<>();
		Thread thread = new Thread(() -> {
			try {
				call.run();
				ended.complete("ended");
			}
			catch (Throwable ex) {
				ended.completeExceptionally(ex);
			}
		});
		thread.setDaemon(true);
		thread.start();
		Await.that("the call waiting", () -> thread.getState() == Thread.State.TIMED_WAITING || ended.isDone());
		return ended;
	}

	private static void kill(StdioServerProcess process) {
		ProcessHandle.of(process.pid()).orElseThrow().destroyForcibly();
	}

	private static Duration timed(Runnable action) {
		long begin = System.nanoTime();
		action.run();
		return Duration.ofNanos(System.nanoTime() - begin);
	}

	/** The fixture whose every start does as one of the words says. */
	private StdioServerSpec perStart(String... words) {
		List<String> args = new ArrayList<>(List.of(this.dir.toString()));
		args.addAll(List.of(words));
		return this.fixtures.spec("files", "per-start.sh", args.toArray(String[]::new));
	}

	/** Let a held start go on. */
	private void go() throws IOException {
		Files.createFile(this.dir.resolve("go"));
	}

	private long starts() throws IOException {
		Path starts = this.dir.resolve("starts");
		return Files.exists(starts) ? Files.readAllLines(starts).size() : 0;
	}

	private void awaitStarts(int count) {
		Await.that(count + " starts", () -> {
			try {
				return starts() >= count;
			}
			catch (IOException ex) {
				return false;
			}
		});
	}

	private static RestartPolicy policy(int maxRestarts, Duration backoff) {
		return new RestartPolicy(Mode.ON_FAILURE, maxRestarts, Duration.ofMinutes(1), backoff, Duration.ofSeconds(30));
	}

	private McpStdioServer server(StdioServerSpec spec, Duration startupTimeout) {
		return server(spec, startupTimeout, SpecDefaults.restart());
	}

	private McpStdioServer server(StdioServerSpec spec, Duration startupTimeout, RestartPolicy policy) {
		return server(spec, startupTimeout, true, policy, SpecDefaults.demand());
	}

	private McpStdioServer server(StdioServerSpec spec, Duration startupTimeout, boolean enabled, Demand demand) {
		return server(spec, startupTimeout, enabled, SpecDefaults.restart(), demand);
	}

	private McpStdioServer server(StdioServerSpec spec, Duration startupTimeout, boolean enabled, RestartPolicy policy,
			Demand demand) {
		McpStdioServer server = new McpStdioServer(
				new McpStdioServerDefinition(spec.toBuilder().startupTimeout(startupTimeout).build(), enabled, false,
						policy, demand, SpecDefaults.limits()),
				TestHost.shared());
		this.servers.add(server);
		return server;
	}

	/** When each state was first entered, by {@link System#nanoTime()}. */
	private static final class FirstEntered implements ServerListener {

		private final Map<ServerState, Long> nanos = new ConcurrentHashMap<>();

		@Override
		public void stateChanged(McpStdioServer server, ServerState state) {
			this.nanos.putIfAbsent(state, System.nanoTime());
		}

		boolean entered(ServerState state) {
			return this.nanos.containsKey(state);
		}

		long at(ServerState state) {
			Long at = this.nanos.get(state);
			assertThat(at).as("when %s was entered", state).isNotNull();
			return at;
		}

	}

}

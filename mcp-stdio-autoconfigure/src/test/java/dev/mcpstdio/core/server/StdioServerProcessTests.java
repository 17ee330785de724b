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

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.mcpstdio.McpServerExitedException;
import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.server.StdioServerProcess.StopResult;
import dev.mcpstdio.core.server.io.JsonRpcLine;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.test.TestHost;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.fail;

/**
 * Tests for {@link StdioServerProcess} against real fixture processes.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class StdioServerProcessTests {

	/** Bounds long enough that any step that waited for one would show. */
	private static final ShutdownTimeouts LONG = new ShutdownTimeouts(Duration.ofSeconds(20), Duration.ofSeconds(20),
			Duration.ofSeconds(20));

	private final Fixtures fixtures;

	private final List<StdioServerProcess> started = new ArrayList<>();

	StdioServerProcessTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@AfterEach
	void noProcessLeftBehind() {
		Fixtures.cleanUp(this.started, StdioServerProcess::stop);
	}

	private StdioServerProcess start(String name, String script) {
		return start(this.fixtures.spec(name, script), MessageListener.NONE);
	}

	private StdioServerProcess start(StdioServerSpec spec, MessageListener listener) {
		StdioServerProcess process = TestHost.shared().start(spec, listener);
		this.started.add(process);
		return process;
	}

	private StdioServerProcess start(ServerHost host, StdioServerSpec spec) {
		StdioServerProcess process = host.start(spec, MessageListener.NONE);
		this.started.add(process);
		return process;
	}

	private static String request(Object id, String method) {
		String jsonId = (id instanceof String) ? "\"" + id + "\"" : id.toString();
		return "{\"jsonrpc\":\"2.0\",\"id\":" + jsonId + ",\"method\":\"" + method + "\"}";
	}

	private static Throwable failureOf(CompletableFuture<?> future) throws Exception {
		try {
			future.get(10, TimeUnit.SECONDS);
		}
		catch (ExecutionException ex) {
			return ex.getCause();
		}
		throw new AssertionError("Expected the future to fail");
	}

	@Test
	void requestGetsItsResponse() throws Exception {
		StdioServerProcess process = start("echo", "echo.sh");
		String response = process.request(1, request(1, "ping")).get(10, TimeUnit.SECONDS);
		assertThat(response).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"echo\":\"ping\"}}");
		assertThat(process.pendingRequests()).isZero();
		// the fixture left its trace: what configuration tests rely on to prove that no
		// process was ever started
		assertThat(this.fixtures.started()).containsExactly(process.pid());
		StopResult result = process.stop();
		assertThat(result.outcome()).isEqualTo(ExitCause.CLEAN);
		assertThat(result.exit().exitCode()).isZero();
	}

	@Test
	void instantExitFailsTheRequestWithExitCodeAndStderr() throws Exception {
		// A send that had to wait for the exit would wait up to 2s + terminate-timeout
		StdioServerProcess process = start(this.fixtures.spec("instant", "instant-exit.sh").withShutdown(LONG),
				MessageListener.NONE);
		Throwable failure = failureOf(process.request("a", request("a", "initialize")));
		assertThat(failure).isInstanceOf(McpServerExitedException.class);
		McpServerExitedException exited = (McpServerExitedException) failure;
		assertThat(exited.exitCode()).isEqualTo(3);
		assertThat(exited.serverName()).isEqualTo("instant");
		assertThat(exited.stderrTail()).containsExactly("boom: missing dependency");
		assertThat(exited).hasMessage(
				"MCP server 'instant' process exited unexpectedly with exit code 3; stderr: boom: missing dependency");
		// once the exit is known, every send fails at once with the same facts
		long begin = System.nanoTime();
		assertThatExceptionOfType(McpServerExitedException.class).isThrownBy(() -> process.send(request(2, "x")))
			.satisfies((ex) -> assertThat(ex.exitCode()).isEqualTo(3));
		assertThat(Duration.ofNanos(System.nanoTime() - begin)).isLessThan(Duration.ofSeconds(5));
		StopResult result = process.stop();
		assertThat(result.wasRunning()).isFalse();
		assertThat(result.outcome()).isEqualTo(ExitCause.UNEXPECTED);
	}

	@Test
	void serverThatIgnoresStdinEofIsTerminated() {
		// Only the stdin-close wait is to be waited: a wait for the 20s drain or
		// terminate-timeout would show
		ShutdownTimeouts timeouts = new ShutdownTimeouts(LONG.drain(), Fixtures.FAST.stdinClose(), LONG.terminate());
		StdioServerProcess process = start(this.fixtures.spec("ignores-eof", "ignores-eof.sh").withShutdown(timeouts),
				MessageListener.NONE);
		StopResult result = process.stop();
		assertThat(result.outcome()).isEqualTo(ExitCause.TERMINATED);
		assertThat(result.exit().exitCode()).isEqualTo(143);
		assertThat(result.exit().describeExitCode()).isEqualTo("143 (signal 15, SIGTERM)");
		assertThat(result.duration()).isGreaterThanOrEqualTo(timeouts.stdinClose())
			.isLessThan(timeouts.stdinClose().plusSeconds(5));
	}

	@Test
	void serverThatIgnoresSigtermIsKilled() {
		// stdin-close and terminate are waited; a wait for the 20s drain would show
		ShutdownTimeouts timeouts = new ShutdownTimeouts(LONG.drain(), Fixtures.FAST.stdinClose(),
				Fixtures.FAST.terminate());
		StdioServerProcess process = start(
				this.fixtures.spec("ignores-term", "ignores-sigterm.sh").withShutdown(timeouts), MessageListener.NONE);
		waitForStderr(process, "ready");
		StopResult result = process.stop();
		assertThat(result.outcome()).isEqualTo(ExitCause.KILLED);
		assertThat(result.exit().exitCode()).isEqualTo(137);
		assertThat(result.exit().describeExitCode()).isEqualTo("137 (signal 9, SIGKILL)");
		Duration waited = timeouts.stdinClose().plus(timeouts.terminate());
		assertThat(result.duration()).isGreaterThanOrEqualTo(waited).isLessThan(waited.plusSeconds(5));
	}

	@Test
	void stoppingAnExitedServerCostsNoWaiting() throws Exception {
		// With 20s bounds per step, any step that waited would show
		StdioServerProcess process = start(this.fixtures.spec("gone", "instant-exit.sh").withShutdown(LONG),
				MessageListener.NONE);
		process.exit().get(10, TimeUnit.SECONDS);
		StopResult result = process.stop();
		assertThat(result.duration()).isLessThan(Duration.ofSeconds(5));
		assertThat(process.stop()).isSameAs(result);
	}

	@Test
	void serverThatClosesStdoutButStaysAliveIsFailedAndEnded() throws Exception {
		StdioServerProcess process = start("closes-stdout", "closes-stdout.sh");
		ExitInfo exit = process.exit().get(10, TimeUnit.SECONDS);
		assertThat(exit.failure()).isEqualTo("it closed its stdout while the process kept running");
		assertThat(exit.cause()).isEqualTo(ExitCause.TERMINATED);
		assertThat(this.fixtures.alive()).isEmpty();
		assertThatExceptionOfType(McpServerExitedException.class).isThrownBy(() -> process.send(request(1, "x")))
			.withMessageContaining("closed its stdout");
	}

	/**
	 * The tree kill: where cgroups are on the group would end the children anyway, so the
	 * test runs without them too, where only the process tree finds them.
	 */
	@ParameterizedTest(name = "cgroups: {0}")
	@ValueSource(booleans = { true, false })
	void childrenAndGrandchildAreCountedAndEnded(boolean cgroups) throws Exception {
		StdioServerProcess process = start(TestHost.of(cgroups), this.fixtures.spec("family", "with-children.sh"));
		waitForStderr(process, "ready");
		assertThat(process.request(1, request(1, "ping")).get(10, TimeUnit.SECONDS)).contains("ping");
		awaitCount(process, 4);
		assertThat(process.treeStats().memoryBytes()).isPositive();
		StopResult result = process.stop();
		// the root exits on EOF; its children do not and are ended with it
		assertThat(result.outcome()).isEqualTo(ExitCause.CLEAN);
		assertThat(this.fixtures.alive()).isEmpty();
		assertThat(process.treeStats().liveProcesses()).isZero();
	}

	@ParameterizedTest(name = "cgroups: {0}")
	@ValueSource(booleans = { true, false })
	void wrapperThatExitsCleanlyLeavesNoChildBehind(boolean cgroups) throws Exception {
		StdioServerProcess process = start(TestHost.of(cgroups), this.fixtures.spec("wrapper", "wrapper-exits.sh"));
		ExitInfo exit = process.exit().get(10, TimeUnit.SECONDS);
		assertThat(exit.exitCode()).isZero();
		assertThat(exit.cause()).isEqualTo(ExitCause.UNEXPECTED);
		// nobody calls stop: the exit alone ends what the wrapper left
		this.fixtures.assertNoneAlive(Duration.ofSeconds(3));
	}

	@Test
	void daemonizedChildThatLeftTheSessionIsFoundByItsMarker() throws Exception {
		// without the cgroup, which would end it anyway: here only its marker leads to it
		StdioServerProcess process = start(TestHost.withoutCgroups(),
				this.fixtures.spec("escapee", "escapes-setsid.sh"));
		waitForStderr(process, "ready");
		awaitCount(process, 3);
		List<Long> before = this.fixtures.alive();
		assertThat(before).hasSizeGreaterThanOrEqualTo(2);
		StopResult result = process.stop();
		assertThat(result.outcome()).isEqualTo(ExitCause.CLEAN);
		assertThat(this.fixtures.alive()).isEmpty();
	}

	@Test
	void stopDuringABlockedOneMebibyteSendIsBounded() throws Exception {
		// The blocked write holds the drain and the close of stdin for their bounds; the
		// SIGTERM ends it, so a wait for the 20s terminate-timeout would show
		ShutdownTimeouts timeouts = new ShutdownTimeouts(Fixtures.FAST.drain(), Fixtures.FAST.stdinClose(),
				LONG.terminate());
		StdioServerProcess process = start(this.fixtures.spec("deaf", "not-reading.sh").withShutdown(timeouts),
				MessageListener.NONE);
		waitForStderr(process, "ready");
		String big = "{\"jsonrpc\":\"2.0\",\"method\":\"big\",\"params\":{\"data\":\"" + "x".repeat(1024 * 1024)
				+ "\"}}";
		AtomicReference<Throwable> sendFailure = new AtomicReference<>();
		Thread sender = new Thread(() -> {
			try {
				process.send(big);
			}
			catch (Throwable ex) {
				sendFailure.set(ex);
			}
		});
		sender.start();
		awaitWriting(process);
		long begin = System.nanoTime();
		StopResult result = process.stop();
		Duration took = Duration.ofNanos(System.nanoTime() - begin);
		sender.join(5000);
		assertThat(sender.isAlive()).isFalse();
		assertThat(sendFailure.get()).isInstanceOf(McpServerNotRunningException.class);
		assertThat(result.outcome()).isEqualTo(ExitCause.TERMINATED);
		assertThat(took).isLessThan(timeouts.drain().plus(timeouts.stdinClose()).plusSeconds(5));
		// stdin was never closed under the write: the writer closed it after the write
		// failed
		assertThat(process.exit().get(5, TimeUnit.SECONDS).cause()).isEqualTo(ExitCause.TERMINATED);
	}

	@Test
	void nonJsonLinesAreSkippedNotFatal() throws Exception {
		List<String> messages = new CopyOnWriteArrayList<>();
		StdioServerProcess process = start(this.fixtures.spec("chatty", "non-json.sh"),
				(message) -> messages.add(message.text()));
		String response = process.request(7, request(7, "ping")).get(10, TimeUnit.SECONDS);
		assertThat(response).contains("\"id\":7");
		process.send(JsonRpcLine.of("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"again\"}"), 8);
		Await.that("one message", () -> messages.size() == 1);
		assertThat(messages).singleElement().asString().contains("again");
		assertThat(process.isRunning()).isTrue();
		// counted, which is what the tests that look for cut lines rely on
		assertThat(process.pipes.nonJsonLines()).isEqualTo(3);
	}

	@Test
	void crlfLineEndsAndALastLineWithoutNewlineAreRead() throws Exception {
		List<String> messages = new CopyOnWriteArrayList<>();
		StdioServerProcess process = start(this.fixtures.spec("crlf", "crlf.sh"),
				(message) -> messages.add(message.text()));
		// the CR is not part of the message; the empty CRLF line is no message at all
		assertThat(process.request(1, request(1, "ping")).get(10, TimeUnit.SECONDS))
			.isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"echo\":\"crlf\"}}");
		// the end of stdout ends the last line
		Await.that("a message", () -> !messages.isEmpty());
		assertThat(messages).containsExactly("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/last\"}");
		assertThat(process.exit().get(10, TimeUnit.SECONDS).exitCode()).isZero();
		assertThat(process.pipes.awaitStdoutEnd(10_000)).isTrue();
		assertThat(process.pipes.nonJsonLines()).isZero();
		assertThat(messages).hasSize(1);
	}

	@Test
	void aRelativeCommandIsFoundInTheWorkingDirectoryAndRunsThere(@TempDir Path workingDirectory) throws Exception {
		Path bin = Files.createDirectories(workingDirectory.resolve("bin"));
		Path script = Files.writeString(bin.resolve("server.sh"),
				"#!/bin/sh\nexec sh '" + Fixtures.script("echo.sh") + "'\n");
		assertThat(script.toFile().setExecutable(true)).isTrue();
		StdioServerSpec marked = this.fixtures.spec("relative", "echo.sh");
		// not found from the JVM's directory: only the working directory has it
		assertThat(Path.of("bin/server.sh")).doesNotExist();
		StdioServerSpec spec = SpecDefaults.builder("relative", "bin/server.sh")
			.env(marked.env())
			.workingDirectory(workingDirectory)
			.build();
		StdioServerProcess process = start(spec, MessageListener.NONE);
		assertThat(process.request(1, request(1, "ping")).get(10, TimeUnit.SECONDS)).contains("\"echo\":\"ping\"");
		assertThat(Path.of("/proc", Long.toString(process.pid()), "cwd").toRealPath())
			.isEqualTo(workingDirectory.toRealPath());
		assertThat(this.fixtures.started()).containsExactly(process.pid());
		assertThat(process.stop().outcome()).isEqualTo(ExitCause.CLEAN);
	}

	@Test
	void tenMegabytesOfStderrNeverBlockTheServer() throws Exception {
		StdioServerSpec spec = this.fixtures.spec("flood", "stderr-flood.sh");
		StdioServerProcess process = start(spec, MessageListener.NONE);
		String response = process.request(1, request(1, "after-flood")).get(60, TimeUnit.SECONDS);
		assertThat(response).contains("after-flood");
		// stdout and stderr are separate pipes, read apart: the answer can overtake
		// the stderr poller still in the flood, so wait until it reached the end
		Await.that("the stderr reader to reach the flood's end", () -> {
			List<String> lines = process.stderrTail();
			return !lines.isEmpty() && lines.get(lines.size() - 1).equals("flood done");
		});
		List<String> tail = process.stderrTail();
		assertThat(tail).hasSize(SpecDefaults.of("defaults", "true").stderrTailLines());
		assertThat(tail.get(tail.size() - 1)).isEqualTo("flood done");
	}

	@Test
	void theLedgersEntryIsWhatTheResponseAndTheExitHandOn() throws Exception {
		// one record per request: the listener (the observation, the client) gets the
		// entry that was sent, never an id to look up in a map of its own
		BlockingQueue<InFlightRequest> answered = new LinkedBlockingQueue<>();
		AtomicReference<List<InFlightRequest>> unanswered = new AtomicReference<>();
		MessageListener listener = new MessageListener() {
			@Override
			public void onMessage(JsonRpcLine message) {
			}

			@Override
			public void onMessage(JsonRpcLine message, @Nullable InFlightRequest request) {
				if (request != null) {
					answered.add(request);
				}
			}

			@Override
			public void onExit(ExitInfo exit, List<InFlightRequest> requests) {
				unanswered.set(requests);
			}
		};
		StdioServerProcess process = start(this.fixtures.spec("entries", "echo.sh"), listener);
		InFlightRequest ping = InFlightRequest.of("e-1", JsonRpcLine.of(request("e-1", "ping")), listener);
		process.send(ping);
		assertThat(answered.poll(10, TimeUnit.SECONDS)).isSameAs(ping);
		InFlightRequest hanging = InFlightRequest.of("e-2", JsonRpcLine.of(request("e-2", "hang")), listener);
		process.send(hanging);
		process.send(request(3, "crash"));
		Await.that("the exit with the unanswered requests", () -> unanswered.get() != null);
		assertThat(unanswered.get()).singleElement().isSameAs(hanging);
		assertThat(hanging.client()).isSameAs(listener);
		assertThat(hanging.method()).isEqualTo("hang");
	}

	@Test
	void crashWithPendingRequestsFailsEveryOneAtOnce() throws Exception {
		AtomicReference<List<Object>> unanswered = new AtomicReference<>();
		MessageListener listener = new MessageListener() {
			@Override
			public void onMessage(JsonRpcLine message) {
			}

			@Override
			public void onExit(ExitInfo exit, List<InFlightRequest> requests) {
				unanswered.set(requests.stream().map(InFlightRequest::id).toList());
			}
		};
		StdioServerProcess process = start(this.fixtures.spec("crashy", "echo.sh"), listener);
		assertThat(process.request(1, request(1, "ping")).get(10, TimeUnit.SECONDS)).contains("ping");
		CompletableFuture<String> hanging = process.request(2, request(2, "hang"));
		process.send(JsonRpcLine.of(request("s-3", "hang")), "s-3");
		process.send(JsonRpcLine.of(request("s-4", "hang")), "s-4");
		assertThat(process.pendingRequests()).isEqualTo(3);
		long begin = System.nanoTime();
		process.send(request(5, "crash"));
		Throwable failure = failureOf(hanging);
		// at the exit, not at some timeout: nothing else would ever answer them
		assertThat(Duration.ofNanos(System.nanoTime() - begin)).isLessThan(Duration.ofSeconds(5));
		assertThat(failure).isInstanceOf(McpServerExitedException.class)
			.hasMessage(
					"MCP server 'crashy' process exited unexpectedly with exit code 5; stderr: crashing on request 5");
		Await.that("the exit with the unanswered requests", () -> unanswered.get() != null);
		assertThat(unanswered.get()).containsExactlyInAnyOrder("s-3", "s-4");
		assertThat(process.pendingRequests()).isZero();
	}

	@Test
	void lineLongerThanTheLimitFailsTheServer() throws Exception {
		StdioServerSpec spec = this.fixtures.spec("verbose", "long-line.sh").toBuilder().maxMessageSize(1024).build();
		StdioServerProcess process = start(spec, MessageListener.NONE);
		ExitInfo exit = process.exit().get(10, TimeUnit.SECONDS);
		assertThat(exit.failure()).contains("longer than max-message-size (1024 bytes)");
		assertThat(exit.cause()).isEqualTo(ExitCause.TERMINATED);
		assertThatExceptionOfType(McpServerExitedException.class).isThrownBy(() -> process.send(request(1, "x")))
			.withMessageContaining("max-message-size");
	}

	@Test
	void sendBlockedLongerThanTheSendTimeoutFailsTheServer() throws Exception {
		StdioServerSpec spec = this.fixtures.spec("slow-reader", "not-reading.sh")
			.toBuilder()
			.sendTimeout(Duration.ofMillis(300))
			.build();
		StdioServerProcess process = start(spec, MessageListener.NONE);
		waitForStderr(process, "ready");
		String big = "{\"jsonrpc\":\"2.0\",\"method\":\"big\",\"params\":{\"data\":\"" + "x".repeat(256 * 1024)
				+ "\"}}";
		// written on the caller's thread: it blocks once the pipe is full, and the server
		// that does not read is ended, which is what unblocks the caller
		assertThatExceptionOfType(McpServerExitedException.class).isThrownBy(() -> process.send(big))
			.withMessageContaining("failed (it did not read its stdin within 300ms)");
		assertThat(process.exit().get(5, TimeUnit.SECONDS).cause()).isEqualTo(ExitCause.TERMINATED);
	}

	@Test
	void sendQueuedBehindABlockedWriteTimesOut() throws Exception {
		StdioServerSpec spec = this.fixtures.spec("queued", "not-reading.sh")
			.toBuilder()
			.sendTimeout(Duration.ofSeconds(2))
			.build();
		StdioServerProcess process = start(spec, MessageListener.NONE);
		waitForStderr(process, "ready");
		String big = "{\"jsonrpc\":\"2.0\",\"method\":\"big\",\"params\":{\"data\":\"" + "x".repeat(256 * 1024)
				+ "\"}}";
		CompletableFuture<Void> blocked = CompletableFuture.runAsync(() -> process.send(big));
		Await.that("a write blocked", process.pipes::isWriting);
		// this one queues behind the blocked write, and gives up at its own send timeout
		// or fails with the server, whichever comes first; it never waits longer
		long begin = System.nanoTime();
		assertThatExceptionOfType(McpStdioException.class).isThrownBy(() -> process.send("{\"jsonrpc\":\"2.0\"}"))
			.withMessageContaining("did not read its stdin within 2s");
		assertThat(Duration.ofNanos(System.nanoTime() - begin)).isLessThan(Duration.ofSeconds(10));
		assertThat(failureOf(blocked)).isInstanceOf(McpServerExitedException.class);
	}

	@Test
	void serverGetsOnlyTheAllowListConfiguredEnvAndMarkers() throws Exception {
		StdioServerSpec spec = this.fixtures.spec("env", "print-env.sh").withEnv(Map.of("LOG_LEVEL", "debug"));
		StdioServerProcess process = start(spec, MessageListener.NONE);
		waitForStderr(process, "env printed");
		List<String> env = process.stderrTail();
		assertThat(env).contains("LOG_LEVEL=debug", "MCP_STDIO_SERVER=env",
				"MCP_STDIO_OWNER_PID=" + ProcessHandle.current().pid());
		// surefire gives the test JVM this secret; servers must not see it
		assertThat(System.getenv("MCP_STDIO_TEST_SECRET")).isNotNull();
		assertThat(env).noneMatch((line) -> line.startsWith("MCP_STDIO_TEST_SECRET"));
		assertThat(env).anyMatch((line) -> line.startsWith("PATH="));
	}

	@Test
	void aResponseWithInvalidUtf8ReachesItsCallerWithAReplacementCharacter() throws Exception {
		StdioServerProcess process = start("bad-utf8", "echo.sh");
		assertThat(process.request("u1", request("u1", "bad-utf8"))).succeedsWithin(Duration.ofSeconds(10))
			.asString()
			.contains("\"text\":\"bad \uFFFD byte\"");
	}

	@Test
	void aRequestTheClientCancelledDoesNotHoldTheDrain() throws Exception {
		StdioServerSpec spec = this.fixtures.spec("cancel", "echo.sh")
			.withShutdown(new ShutdownTimeouts(Duration.ofSeconds(60), Duration.ofSeconds(10), Duration.ofSeconds(10)));
		StdioServerProcess process = start(spec, MessageListener.NONE);
		process.send(JsonRpcLine.of(request("h1", "hang")), "h1");
		process.send(JsonRpcLine.of(request("h2", "hang")), "h2");
		assertThat(process.pendingRequests()).isEqualTo(2);
		process.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"h1\"}}");
		process.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"h2\","
				+ "\"reason\":\"timeout\"}}");
		assertThat(process.pendingRequests()).isZero();
		StopResult result = process.stop();
		// the 60s drain would have waited for them
		assertThat(result.duration()).isLessThan(Duration.ofSeconds(30));
		assertThat(result.outcome()).isEqualTo(ExitCause.CLEAN);
	}

	@Test
	void aRequestOlderThanTheClientsTimeoutDoesNotHoldTheDrain() throws Exception {
		StdioServerSpec spec = this.fixtures.spec("gave-up", "echo.sh")
			.withShutdown(new ShutdownTimeouts(Duration.ofSeconds(60), Duration.ofSeconds(10), Duration.ofSeconds(10)));
		StdioServerProcess process = start(spec, MessageListener.NONE);
		process.setClientRequestTimeout(Duration.ofMillis(500));
		process.send(JsonRpcLine.of(request("h1", "hang")), "h1");
		StopResult result = process.stop();
		assertThat(result.duration()).isLessThan(Duration.ofSeconds(30));
		assertThat(result.outcome()).isEqualTo(ExitCause.CLEAN);
	}

	@Test
	void aPendingRequestAnsweredDuringTheDrainGetsItsResponse() throws Exception {
		StdioServerSpec spec = this.fixtures.spec("drain", "slow-answer.sh")
			.withShutdown(new ShutdownTimeouts(Duration.ofSeconds(60), Duration.ofSeconds(10), Duration.ofSeconds(10)));
		StdioServerProcess process = start(spec, MessageListener.NONE);
		CompletableFuture<String> answer = process.request("s1", request("s1", "slow"));
		StopResult result = process.stop();
		assertThat(answer).isCompletedWithValueMatching((line) -> line.contains("\"echo\":\"slow\""));
		assertThat(result.outcome()).isEqualTo(ExitCause.CLEAN);
	}

	@Test
	void commandThatCannotBeFoundFailsBeforeAnythingStarts() {
		StdioServerSpec spec = SpecDefaults.of("missing", "no-such-command-mcp-stdio");
		assertThatExceptionOfType(McpStdioException.class)
			.isThrownBy(() -> TestHost.shared().start(spec, MessageListener.NONE))
			.withMessageContaining("Command 'no-such-command-mcp-stdio' cannot be run: not found in PATH");
	}

	@Test
	void sendsAfterStopFailAsNotRunning() {
		StdioServerProcess process = start("stopped", "echo.sh");
		process.stop();
		assertThatExceptionOfType(McpServerNotRunningException.class).isThrownBy(() -> process.send(request(1, "x")))
			.withMessage("MCP server 'stopped' is stopping or stopped");
	}

	@Test
	void concurrentStopsShareOneResult() throws Exception {
		StdioServerProcess process = start("shared-stop", "ignores-eof.sh");
		List<CompletableFuture<StopResult>> stops = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			stops.add(CompletableFuture.supplyAsync(process::stop));
		}
		List<StopResult> results = new ArrayList<>();
		for (CompletableFuture<StopResult> stop : stops) {
			results.add(stop.get(10, TimeUnit.SECONDS));
		}
		assertThat(Collections.frequency(results, results.get(0))).isEqualTo(8);
	}

	private static void waitForStderr(StdioServerProcess process, String line) {
		Await.that("stderr line '" + line + "'", () -> process.stderrTail().contains(line));
	}

	private static void awaitCount(StdioServerProcess process, int count) {
		int live = Await.within(Await.DEFAULT_BOUND)
			.value(() -> process.treeStats().liveProcesses(), (read) -> read == count);
		assertThat(live).isEqualTo(count);
	}

	private static void awaitWriting(StdioServerProcess process) {
		// the writer blocks once the pipe buffer (64 KiB) is full
		Await.that("a write blocked", process.pipes::isWriting);
		Fixtures.sleep(100);
		assertThat(process.pipes.isWriting()).isTrue();
	}

}

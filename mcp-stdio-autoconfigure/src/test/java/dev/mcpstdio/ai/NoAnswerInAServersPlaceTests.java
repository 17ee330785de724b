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

package dev.mcpstdio.ai;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.mcpstdio.McpServerExitedException;
import dev.mcpstdio.core.server.ExitCause;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static dev.mcpstdio.ai.AiTestSupport.messages;
import static dev.mcpstdio.ai.AiTestSupport.properties;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * No answer is ever given in a server's place: after its process ended, every request
 * through Spring AI's client and through {@link McpStdioServer#request} fails at once
 * naming the exit; a call waits for at most one start of a crash-looping server; and an
 * exit is noticed promptly while a child holds the server's pipes.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class NoAnswerInAServersPlaceTests {

	/** What "at once" means here: far below any timeout of the client's. */
	private static final Duration AT_ONCE = Duration.ofSeconds(1);

	private final Fixtures fixtures;

	NoAnswerInAServersPlaceTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@ParameterizedTest
	@EnumSource(End.class)
	void everyRequestAfterTheEndFailsAtOnceNamingIt(End end) {
		List<String> server = AiTestSupport.testServer("victim", this.fixtures.id(), end.options);
		AiTestSupport.runner().withPropertyValues(properties(server)).run((context) -> {
			McpStdioServer victim = context.getBean(McpStdioServers.class).get("victim");
			McpSyncClient client = AiTestSupport.syncClient(context);
			end.bring(client);
			Await.within(Duration.ofSeconds(20)).until("victim FAILED", () -> victim.state() == ServerState.FAILED);
			String expected = "MCP server 'victim' process " + end.exit;
			List<Callable<?>> calls = new ArrayList<>(List.of(client::ping, client::listTools, client::listPrompts,
					client::listResources, client::listResourceTemplates,
					() -> client.callTool(CallToolRequest.builder("echo").arguments(Map.of("text", "hi")).build())));
			if (!client.isInitialized()) {
				// never answered: its initialize says why too
				calls.add(client::initialize);
			}
			for (Callable<?> call : calls) {
				long begin = System.nanoTime();
				assertThatThrownBy(call::call).satisfies((thrown) -> assertThat(messages(thrown)).contains(expected));
				assertThat(Duration.ofNanos(System.nanoTime() - begin)).isLessThan(AT_ONCE);
			}
			// and a direct caller of the server
			long begin = System.nanoTime();
			CompletableFuture<String> direct = victim.request("direct-1",
					"{\"jsonrpc\":\"2.0\",\"id\":\"direct-1\",\"method\":\"tools/list\"}");
			assertThatThrownBy(() -> direct.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(McpServerExitedException.class)
				.satisfies((thrown) -> assertThat(thrown.getCause()).hasMessage(expected));
			assertThat(Duration.ofNanos(System.nanoTime() - begin)).isLessThan(AT_ONCE);
		});
	}

	@Test
	void aCallersWaitIsOneStartNotTheChainOfRestarts() throws Exception {
		AiTestSupport.runner().withPropertyValues(properties(crashLoop("2s"))).run((context) -> {
			McpStdioServer loop = context.getBean(McpStdioServers.class).get("loop");
			McpSyncClient client = AiTestSupport.syncClient(context);
			Await.within(Duration.ofSeconds(20))
				.until("the first restart pending", () -> loop.state() == ServerState.RESTARTING);
			List<Duration> waited = failures(loop, client);
			System.out.println("Callers of a crash-looping server (backoffs 2 s, 4 s, 8 s ...) failed after "
					+ waited.stream().map(Duration::toMillis).toList() + " ms");
			// one backoff of 2 s and one start, never the 4 s and 8 s after it
			assertThat(waited).allSatisfy((took) -> assertThat(took).isLessThan(Duration.ofSeconds(6)));
		});
	}

	@Test
	void theFirstCallsOfACrashLoopingServerFailWithTheExitAtOnceNotAfterTheNextBackoff() throws Exception {
		AiTestSupport.runner().withPropertyValues(properties(crashLoop("3s"))).run((context) -> {
			McpStdioServer loop = context.getBean(McpStdioServers.class).get("loop");
			// a restart ran a process that ended as it started: the server crash-loops,
			// the next restart 6 s away
			Await.within(Duration.ofSeconds(30))
				.until("a restart's process ended", () -> loop.restarts() >= 1 && loop.exits(ExitCause.UNEXPECTED) >= 2
						&& loop.state() == ServerState.RESTARTING);
			// each client call its first: Spring AI's initialize
			List<Duration> waited = failures(loop, AiTestSupport.syncClient(context));
			System.out.println("First calls of a crash-looping server (next backoff 6 s) failed after "
					+ waited.stream().map(Duration::toMillis).toList() + " ms");
			// with the exit at once, never after the backoff of the next restart: a
			// generous bound for a loaded machine, below the backoff
			assertThat(waited).allSatisfy((took) -> assertThat(took).isLessThan(Duration.ofSeconds(4)));
		});
	}

	/** A server that exits at once with a line on stderr, restarted always. */
	private List<String> crashLoop(String initialBackoff) {
		String prefix = "mcp.stdio.servers.loop.";
		return List.of(prefix + "command=sh", prefix + "args[0]=-c",
				prefix + "args[1]=echo 'boom: missing dependency' >&2; exit 3",
				prefix + "env.MCP_STDIO_TEST=" + this.fixtures.id(), prefix + "restart.policy=always",
				prefix + "restart.initial-backoff=" + initialBackoff, prefix + "restart.max-backoff=30s",
				prefix + "restart.max-restarts=5", prefix + "restart.window=10m",
				"spring.ai.mcp.client.initialized=false");
	}

	/**
	 * Eight calls through the client and eight direct requests at once: how long each
	 * took to fail naming the exit.
	 */
	private static List<Duration> failures(McpStdioServer loop, McpSyncClient client) throws Exception {
		ExecutorService callers = Executors.newFixedThreadPool(16);
		try {
			List<Future<Duration>> calls = new ArrayList<>();
			for (int i = 0; i < 8; i++) {
				calls.add(callers.submit(() -> timeToFailure(client::listTools)));
				String id = "direct-" + i;
				String ping = "{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"method\":\"ping\"}";
				calls.add(callers.submit(() -> timeToFailure(() -> loop.request(id, ping).get(60, TimeUnit.SECONDS))));
			}
			List<Duration> waited = new ArrayList<>();
			for (Future<Duration> call : calls) {
				waited.add(call.get(90, TimeUnit.SECONDS));
			}
			return waited;
		}
		finally {
			callers.shutdownNow();
		}
	}

	@Test
	void anExitIsNoticedPromptlyWhileAChildHoldsTheServersPipes() {
		List<String> server = new ArrayList<>(AiTestSupport.testServer("held", this.fixtures.id(), "--hold-pipes"));
		server.addAll(List.of("mcp.stdio.servers.held.restart.policy=on-failure",
				"mcp.stdio.servers.held.restart.initial-backoff=100ms",
				"mcp.stdio.servers.held.restart.max-backoff=100ms", "mcp.stdio.servers.held.restart.max-restarts=20"));
		AiTestSupport.runner().withPropertyValues(properties(server)).run((context) -> {
			McpStdioServer held = context.getBean(McpStdioServers.class).get("held");
			McpSyncClient client = AiTestSupport.syncClient(context);
			List<Duration> noticed = new ArrayList<>();
			for (int i = 1; i <= 5; i++) {
				String bye = "held: bye " + i;
				Await.within(Duration.ofSeconds(30))
					.until("held RUNNING", () -> held.state() == ServerState.RUNNING && held.isInitialized());
				// answered by the running process: its session is resumed on it
				assertThat(client.callTool(CallToolRequest.builder("echo").arguments(Map.of("text", "up")).build())
					.isError()).isNotEqualTo(Boolean.TRUE);
				long root = held.pid();
				CompletableFuture<Long> exited = CompletableFuture.supplyAsync(() -> endOf(root));
				// the call fails once the exit is noticed
				assertThatThrownBy(() -> client
					.callTool(CallToolRequest.builder("crash").arguments(Map.of("stderr", bye)).build()))
					.satisfies((thrown) -> assertThat(messages(thrown))
						.contains("MCP server 'held' process exited unexpectedly with exit code 3; stderr: " + bye));
				long failed = System.nanoTime();
				noticed.add(Duration.ofNanos(failed - exited.get(10, TimeUnit.SECONDS)));
			}
			List<Duration> sorted = new ArrayList<>(noticed);
			Collections.sort(sorted);
			System.out.println("Exit noticed while a child holds stdout and stderr "
					+ noticed.stream().map(Duration::toMillis).toList() + " ms after it");
			// the streams' ends are not waited for (that alone was 600 ms): the median is
			// the exit watcher's look every 100 ms and a little more, with room for load
			assertThat(sorted.get(2)).isLessThan(Duration.ofMillis(400));
		});
	}

	/**
	 * Watch a process until it has ended (gone, or a zombie): a JVM takes a few hundred
	 * milliseconds to exit once it has children, which is no part of the noticing.
	 * @return the {@link System#nanoTime()} it was first seen ended
	 */
	private static long endOf(long pid) {
		Path stat = Path.of("/proc", Long.toString(pid), "stat");
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (System.nanoTime() < deadline) {
			try {
				String line = Files.readString(stat);
				if (line.charAt(line.lastIndexOf(')') + 2) == 'Z') {
					return System.nanoTime();
				}
			}
			catch (IOException ex) {
				return System.nanoTime();
			}
			LockSupport.parkNanos(500_000L);
		}
		throw new AssertionError("process " + pid + " did not end within 30 s");
	}

	private static Duration timeToFailure(Callable<?> call) {
		long begin = System.nanoTime();
		Throwable failure = null;
		try {
			call.call();
		}
		catch (ExecutionException ex) {
			failure = ex.getCause();
		}
		catch (Exception ex) {
			failure = ex;
		}
		Duration took = Duration.ofNanos(System.nanoTime() - begin);
		assertThat(failure).as("the call to a crash-looping server").isNotNull();
		assertThat(messages(failure)).contains("MCP server 'loop' process exited unexpectedly with exit code 3")
			.contains("boom: missing dependency");
		return took;
	}

	/** The ways a server's process ends that a caller must be told of. */
	enum End {

		EXITS_AT_ONCE("exited unexpectedly with exit code 3; stderr: boom: missing dependency", null, "--exit-now",
				"3"),

		CLOSES_ITS_STDOUT_AND_LIVES_ON(
				"failed (it closed its stdout while the process kept running) and exited "
						+ "unexpectedly with exit code 143 (signal 15, SIGTERM); stderr: bye: closing stdout",
				"close_stdout"),

		KILLED_ON_ITS_FOURTH_REQUEST(
				"exited unexpectedly with exit code 137 (signal 9, SIGKILL); stderr: crash: out " + "of memory", "echo",
				"--kill-on-request", "4", "--stderr", "crash: out of memory"),

		EXITS_0_MID_SESSION("exited unexpectedly with exit code 0; stderr: bye: done", "quit");

		private final String exit;

		private final String tool;

		private final String[] options;

		End(String exit, String tool, String... options) {
			this.exit = exit;
			this.tool = tool;
			this.options = options;
		}

		/**
		 * Bring the end about through the client, when the server does not end by itself.
		 */
		void bring(McpSyncClient client) {
			if (this.tool == null) {
				return;
			}
			if (this == KILLED_ON_ITS_FOURTH_REQUEST) {
				// initialize was the first, these the second and third
				client.listTools();
				client.callTool(CallToolRequest.builder("echo").arguments(Map.of("text", "third")).build());
			}
			String stderr = (this == EXITS_0_MID_SESSION) ? "bye: done" : "bye: closing stdout";
			assertThatThrownBy(() -> client.callTool(
					CallToolRequest.builder(this.tool).arguments(Map.of("stderr", stderr, "text", "4th")).build()))
				.as("the call the process ended on")
				.satisfies((thrown) -> assertThat(messages(thrown)).contains(this.exit));
		}

	}

}

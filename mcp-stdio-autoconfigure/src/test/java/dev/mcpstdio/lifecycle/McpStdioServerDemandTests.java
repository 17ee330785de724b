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

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.server.ExitCause;
import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.Demand;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.test.TestHost;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests of lazy start and idle stop ({@link DemandSupervisor}) with real processes and
 * mcp-stdio's own handshake, without Spring AI.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class McpStdioServerDemandTests {

	private final Fixtures fixtures;

	private final List<McpStdioServer> servers = new ArrayList<>();

	McpStdioServerDemandTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@AfterEach
	void cleanUp() {
		this.servers.forEach(McpStdioServer::stopServer);
	}

	@Test
	void lazyServerHasNoProcessUntilItsFirstMessageStartsIt() {
		McpStdioServer server = server(new Demand(StartMode.LAZY, null));
		assertThat(server.state()).isEqualTo(ServerState.IDLE);
		server.start();
		assertThat(server.isRunning()).isTrue();
		assertThat(server.state()).isEqualTo(ServerState.IDLE);
		assertThat(server.process()).isNull();
		assertThat(server.treeStats().liveProcesses()).isZero();
		assertThat(this.fixtures.alive()).isEmpty();
		// the first caller waits for the start and the handshake, then gets its answer
		assertThat(request(server, "first")).contains("\"echo\":\"first\"");
		assertThat(server.state()).isEqualTo(ServerState.RUNNING);
		assertThat(server.isInitialized()).isTrue();
		assertThat(server.clientConnection().generation()).isEqualTo(1);
		Await.that("its one process alive", () -> this.fixtures.alive().equals(List.of(server.pid())));
		server.stop();
		assertThat(server.state()).isEqualTo(ServerState.STOPPED);
		// stopped, not idle: a message does not start it again
		assertThatExceptionOfType(McpServerNotRunningException.class)
			.isThrownBy(() -> server.send("{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}", null));
		assertThat(server.clientConnection().generation()).isEqualTo(1);
	}

	@Test
	void lazyServerNeverUsedStopsWithoutAProcess() {
		McpStdioServer server = server(new Demand(StartMode.LAZY, Duration.ofMillis(300)));
		server.start();
		server.stop();
		assertThat(server.state()).isEqualTo(ServerState.STOPPED);
		assertThat(server.lastExit()).isNull();
		assertThat(server.clientConnection().generation()).isZero();
	}

	@Test
	void idleServerIsStoppedAndItsNextMessageStartsItAgain() {
		McpStdioServer server = server(new Demand(StartMode.EAGER, Duration.ofMillis(500)));
		server.start();
		StdioServerProcess first = server.process();
		assertThat(request(server, "one")).contains("\"echo\":\"one\"");
		Await.that("stopped when idle", () -> server.state() == ServerState.IDLE && server.lastExit() != null);
		assertThat(server.lastExit().cause()).isEqualTo(ExitCause.IDLE);
		assertThat(server.exits(ExitCause.IDLE)).isEqualTo(1);
		assertThat(server.restarts()).isZero();
		assertThat(server.isInitialized()).isFalse();
		assertThat(server.pid()).isNull();
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
		assertThat(request(server, "two")).contains("\"echo\":\"two\"");
		assertThat(server.clientConnection().generation()).isEqualTo(2);
		assertThat(server.process()).isNotSameAs(first);
		assertThat(server.isInitialized()).isTrue();
		// and idle again
		Await.that("stopped when idle again",
				() -> server.exits(ExitCause.IDLE) == 2 && server.state() == ServerState.IDLE);
	}

	@Test
	void aPendingRequestHoldsTheServerUpPastItsIdleTimeout() {
		McpStdioServer server = server(new Demand(StartMode.LAZY, Duration.ofMillis(300)));
		server.start();
		long begin = System.nanoTime();
		// answered after 3 s, ten idle timeouts
		CompletableFuture<String> slow = server.request("slow", message("slow", "slow"));
		assertThat(slow).succeedsWithin(Duration.ofSeconds(20)).asString().contains("\"echo\":\"slow\"");
		assertThat(Duration.ofNanos(System.nanoTime() - begin)).isGreaterThanOrEqualTo(Duration.ofSeconds(3));
		assertThat(server.exits(ExitCause.IDLE)).isZero();
		assertThat(server.clientConnection().generation()).isEqualTo(1);
		// once answered, the idle timeout runs from the answer
		Await.that("stopped when idle", () -> server.state() == ServerState.IDLE && server.lastExit() != null);
		assertThat(server.lastExit().cause()).isEqualTo(ExitCause.IDLE);
	}

	@Test
	void messagesRacingIdleStopsAllGetTheirAnswers() throws Exception {
		McpStdioServer server = server(new Demand(StartMode.LAZY, Duration.ofMillis(100)));
		server.start();
		ExecutorService senders = Executors.newFixedThreadPool(2);
		try {
			List<Future<String>> answers = new ArrayList<>();
			for (int sender = 0; sender < 2; sender++) {
				int id = sender;
				answers.add(senders.submit(() -> {
					StringBuilder seen = new StringBuilder();
					for (int i = 0; i < 12; i++) {
						// around the idle timeout: some land on a running server, some on
						// an
						// idle one, some while it is being stopped
						Fixtures.sleep(ThreadLocalRandom.current().nextLong(60, 500));
						seen.append(request(server, "m" + id + "-" + i)).append('\n');
					}
					return seen.toString();
				}));
			}
			for (Future<String> answer : answers) {
				assertThat(answer.get(120, TimeUnit.SECONDS).lines()).hasSize(12)
					.allSatisfy((line) -> assertThat(line).contains("\"echo\":\"m"));
			}
		}
		finally {
			senders.shutdownNow();
		}
		assertThat(server.exits(ExitCause.IDLE)).isPositive();
		assertThat(server.exits(ExitCause.UNEXPECTED)).isZero();
	}

	private static String request(McpStdioServer server, String method) {
		String id = method + "-" + System.nanoTime();
		return server.request(id, message(id, method)).orTimeout(30, TimeUnit.SECONDS).join();
	}

	private static String message(String id, String method) {
		return "{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"method\":\"" + method + "\"}";
	}

	private McpStdioServer server(Demand demand) {
		McpStdioServer server = new McpStdioServer(new McpStdioServerDefinition(
				this.fixtures.spec("demand", "echo.sh").toBuilder().startupTimeout(Duration.ofSeconds(20)).build(),
				true, false, SpecDefaults.restart(), demand, SpecDefaults.limits()), TestHost.shared());
		this.servers.add(server);
		return server;
	}

}

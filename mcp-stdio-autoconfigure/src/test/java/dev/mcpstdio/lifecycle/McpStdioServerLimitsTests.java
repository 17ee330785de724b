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
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.mcpstdio.McpServerExitedException;
import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.server.ExitCause;
import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.Limits;
import dev.mcpstdio.lifecycle.RestartPolicy.Mode;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.test.TestHost;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of {@code max-memory} and {@code max-processes} ({@link ResourceGuard}) with real
 * processes that grow.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(OutputCaptureExtension.class)
@ExtendWith(NoProcessLeft.class)
class McpStdioServerLimitsTests {

	private static final long MB = 1024 * 1024;

	private static final Duration INTERVAL = Duration.ofMillis(200);

	private final Fixtures fixtures;

	private final List<McpStdioServer> servers = new ArrayList<>();

	McpStdioServerLimitsTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@AfterEach
	void cleanUp() {
		this.servers.forEach(McpStdioServer::stopServer);
	}

	@Test
	void serverOverItsMemoryIsStoppedOnceAndRestartedByItsPolicy(CapturedOutput output) {
		McpStdioServer server = server(new Limits(40 * MB, null, INTERVAL), new RestartPolicy(Mode.ON_FAILURE, 3,
				Duration.ofMinutes(1), Duration.ofMillis(100), Duration.ofSeconds(1)));
		server.start();
		long first = server.pid();
		assertThat(server.treeStats().memoryBytes()).isLessThan(40 * MB);
		// a child holding 64 MB: the tree is over its 40 MB
		assertThat(request(server, "grow")).contains("\"echo\":\"grow\"");
		Await.that("stopped over its memory and restarted", () -> server.exits(ExitCause.MEMORY_LIMIT) == 1
				&& server.state() == ServerState.RUNNING && server.clientConnection().generation() == 2);
		ExitInfo exit = server.lastExit();
		assertThat(exit.cause()).isEqualTo(ExitCause.MEMORY_LIMIT);
		assertThat(exit.pid()).isEqualTo(first);
		assertThat(exit.failure()).contains("over max-memory 40 MB");
		assertThat(exit.message()).startsWith("MCP server 'limited' process was stopped (")
			.contains("max-memory 40 MB");
		assertThat(server.restarts()).isEqualTo(1);
		// the new process is small again and works; the old one and its child are gone
		assertThat(request(server, "ping")).contains("\"echo\":\"ping\"");
		Await.that("its one process alive",
				() -> server.treeStats().liveProcesses() == 1 && this.fixtures.alive().equals(List.of(server.pid())));
		// one WARN, naming the figures
		Matcher warn = Pattern
			.compile("MCP server 'limited' \\(pid " + first
					+ "\\) has (\\d+) processes using ([\\d.]+) MB of resident memory, over max-memory 40 MB; "
					+ "stopping it \\(MEMORY_LIMIT\\)")
			.matcher(output.getOut());
		assertThat(warn.find()).as("the WARN in %s", output.getOut()).isTrue();
		assertThat(Double.parseDouble(warn.group(2))).isGreaterThan(40);
		assertThat(warn.find()).as("a second WARN").isFalse();
	}

	@Test
	void serverOverItsProcessesIsStoppedWithItsChildrenAndTheCallerIsToldWhy(CapturedOutput output) {
		McpStdioServer server = server(new Limits(null, 5, INTERVAL), SpecDefaults.restart());
		server.start();
		// a call under way when the guard strikes (never answered)
		CompletableFuture<String> pending = server.request("h1", message("h1", "hang"));
		// eight children: nine processes in the tree
		assertThat(request(server, "spawn")).contains("\"echo\":\"spawn\"");
		Await.that("FAILED", () -> server.state() == ServerState.FAILED);
		assertThat(server.lastExit().cause()).isEqualTo(ExitCause.PROCESS_LIMIT);
		assertThat(server.exits(ExitCause.PROCESS_LIMIT)).isEqualTo(1);
		assertThat(server.restarts()).isZero();
		assertThat(pending).failsWithin(Duration.ofSeconds(5))
			.withThrowableOfType(java.util.concurrent.ExecutionException.class)
			.havingCause()
			.isInstanceOf(McpServerExitedException.class)
			.withMessageMatching("MCP server 'limited' process was stopped \\(\\d+ processes using .*")
			.withMessageContaining("over max-processes 5");
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
		assertThat(output.getOut()).contains("over max-processes 5; stopping it (PROCESS_LIMIT)");
	}

	@Test
	void serverWithinItsLimitsIsLeftAlone() {
		McpStdioServer server = server(new Limits(200 * MB, 5, INTERVAL), SpecDefaults.restart());
		server.start();
		Fixtures.sleep(5 * INTERVAL.toMillis());
		assertThat(request(server, "ping")).contains("\"echo\":\"ping\"");
		assertThat(server.state()).isEqualTo(ServerState.RUNNING);
		assertThat(server.clientConnection().generation()).isEqualTo(1);
		assertThat(server.lastExit()).isNull();
	}

	private static String request(McpStdioServer server, String method) {
		String id = method + "-" + System.nanoTime();
		return server.request(id, message(id, method)).orTimeout(30, TimeUnit.SECONDS).join();
	}

	private static String message(String id, String method) {
		return "{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"method\":\"" + method + "\"}";
	}

	private McpStdioServer server(Limits limits, RestartPolicy policy) {
		McpStdioServer server = new McpStdioServer(new McpStdioServerDefinition(
				this.fixtures.spec("limited", "echo.sh").toBuilder().startupTimeout(Duration.ofSeconds(20)).build(),
				true, false, policy, SpecDefaults.demand(), limits), TestHost.shared());
		this.servers.add(server);
		return server;
	}

}

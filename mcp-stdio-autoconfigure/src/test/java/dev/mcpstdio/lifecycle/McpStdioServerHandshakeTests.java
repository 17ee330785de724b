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

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.server.ExitCause;
import dev.mcpstdio.core.server.ShutdownTimeouts;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.test.TestHost;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Tests of the MCP handshake a server performs itself (without Spring AI), through
 * {@link McpStdioServer#startServer()} with real processes: one that never answers
 * {@code initialize} and one that refuses it.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class McpStdioServerHandshakeTests {

	/** A drain so long that a stop held by the unanswered initialize would show. */
	private static final ShutdownTimeouts LONG_DRAIN = new ShutdownTimeouts(Duration.ofSeconds(30),
			Duration.ofSeconds(2), Duration.ofSeconds(2));

	private final Fixtures fixtures;

	private final List<McpStdioServer> servers = new ArrayList<>();

	McpStdioServerHandshakeTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@AfterEach
	void cleanUp() {
		Fixtures.cleanUp(this.servers, McpStdioServer::stopServer);
	}

	@Test
	void aServerThatNeverAnswersInitializeFailsAtTheStartupTimeoutNamingTheProperty() {
		McpStdioServer server = server("mute", "never-answers.sh", Duration.ofSeconds(1));
		long begin = System.nanoTime();
		Throwable failure = catchThrowable(server::startServer);
		Duration took = Duration.ofNanos(System.nanoTime() - begin);
		assertFailedAndStopped(server, failure, "MCP server 'mute' did not answer initialize within 1s; raise "
				+ "mcp.stdio.servers.mute.startup-timeout if it is just slow to start");
		// the initialize nobody waits for any more did not hold the 30s drain
		assertThat(server.pendingRequests()).isZero();
		assertThat(took).isGreaterThanOrEqualTo(Duration.ofSeconds(1)).isLessThan(Duration.ofSeconds(15));
	}

	@Test
	void aServerThatRefusesInitializeFailsSayingWhy() {
		McpStdioServer server = server("picky", "refuses-init.sh", Duration.ofSeconds(30));
		long begin = System.nanoTime();
		Throwable failure = catchThrowable(server::startServer);
		Duration took = Duration.ofNanos(System.nanoTime() - begin);
		assertFailedAndStopped(server, failure, "MCP server 'picky' refused initialize: Unsupported protocol version");
		// at the answer, not at the 30s startup-timeout or drain
		assertThat(took).isLessThan(Duration.ofSeconds(15));
	}

	/**
	 * Assert that the start failed with the message, the server is {@code FAILED}, and
	 * its one process was stopped: it exits when its stdin closes.
	 */
	private void assertFailedAndStopped(McpStdioServer server, Throwable failure, String message) {
		assertThat(failure).isExactlyInstanceOf(McpStdioException.class).hasMessage(message);
		assertThat(((McpStdioException) failure).serverName()).isEqualTo(server.name());
		assertThat(server.state()).isEqualTo(ServerState.FAILED);
		assertThat(server.isInitialized()).isFalse();
		assertThat(server.lastFailure()).isEqualTo(message);
		assertThat(server.pid()).isNull();
		assertThat(server.lastExit().cause()).isEqualTo(ExitCause.CLEAN);
		// started once: a failed handshake is no reason for another process
		assertThat(this.fixtures.started()).hasSize(1);
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	private McpStdioServer server(String name, String script, Duration startupTimeout) {
		McpStdioServer server = new McpStdioServer(SpecDefaults.definition(this.fixtures.spec(name, script)
			.withShutdown(LONG_DRAIN)
			.toBuilder()
			.startupTimeout(startupTimeout)
			.build()), TestHost.shared());
		this.servers.add(server);
		return server;
	}

}

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

package dev.mcpstdio.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerListener;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.SmartLifecycle;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of the shutdown phase of the servers: after the web server's graceful shutdown
 * and stop, and warned about when a server's worst case cannot fit in
 * {@code spring.lifecycle.timeout-per-shutdown-phase}.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(OutputCaptureExtension.class)
@ExtendWith(NoProcessLeft.class)
class McpStdioShutdownPhaseTests {

	private static final String WARNING = "may take up to";

	private final Fixtures fixtures;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(McpStdioAutoConfiguration.class));

	McpStdioShutdownPhaseTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void serversStartBeforeAndStopAfterTheWebServer() {
		assertThat(McpStdioServer.PHASE).isLessThan(WebServerApplicationContext.START_STOP_LIFECYCLE_PHASE);
		assertThat(WebServerApplicationContext.START_STOP_LIFECYCLE_PHASE)
			.isLessThan(WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE);
		// the registry begins every start before any server awaits its own
		assertThat(new McpStdioServers(List.of()).getPhase()).isLessThan(McpStdioServer.PHASE);
	}

	@Test
	void stopOrderFollowsThePhases() {
		List<String> stops = new CopyOnWriteArrayList<>();
		this.runner.withPropertyValues(echo("a"))
			.withBean("gracefulShutdown", SmartLifecycle.class,
					() -> new Recorder("graceful-shutdown", WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE, stops))
			.withBean("webServer", SmartLifecycle.class,
					() -> new Recorder("web-server", WebServerApplicationContext.START_STOP_LIFECYCLE_PHASE, stops))
			.run((context) -> {
				McpStdioServer server = context.getBean(McpStdioServers.class).get("a");
				server.addListener(new ServerListener() {
					@Override
					public void stateChanged(McpStdioServer changed, ServerState state) {
						if (state == ServerState.STOPPING) {
							stops.add("mcp-server");
						}
					}
				});
			});
		assertThat(stops).containsExactly("graceful-shutdown", "web-server", "mcp-server");
	}

	@Test
	void warnsWhenAServersWorstCaseExceedsThePhaseTimeout(CapturedOutput output) {
		this.runner.withPropertyValues(echo("slow"))
			.withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=5s",
					"mcp.stdio.servers.slow.shutdown.drain-timeout=3s")
			.run((context) -> assertThat(context).hasNotFailed());
		// 3s + 2s + 2 x 2s + 2s of SIGKILL margin + 7.6s of final exit wait
		assertThat(output).contains("MCP server 'slow' may take up to 18600 ms to stop, longer than "
				+ "spring.lifecycle.timeout-per-shutdown-phase (5000 ms): raise that timeout or lower "
				+ "mcp.stdio.servers.slow.shutdown.*");
	}

	@Test
	void comparesWithSpringBootsDefaultPhaseTimeout(CapturedOutput output) {
		this.runner.withPropertyValues(echo("slow"))
			.withPropertyValues(echo("fine"))
			.withPropertyValues("mcp.stdio.servers.slow.shutdown.drain-timeout=40s")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains("MCP server 'slow' may take up to 55600 ms to stop")
			.contains("(30000 ms)")
			.doesNotContain("MCP server 'fine' " + WARNING);
	}

	@Test
	void noWarningWhenEveryServerFits(CapturedOutput output) {
		// five enabled servers whose stop may take 18.6s each fit in 20s: they stop in
		// parallel, so the sum (93s) is no concern
		List<String> names = List.of("a", "b", "c", "d", "e");
		ApplicationContextRunner runner = this.runner.withPropertyValues(
				"spring.lifecycle.timeout-per-shutdown-phase=20s", "mcp.stdio.defaults.shutdown.drain-timeout=3s");
		for (String name : names) {
			runner = runner.withPropertyValues(echo(name));
		}
		runner.run((context) -> {
			assertThat(context).hasNotFailed();
			McpStdioServers servers = context.getBean(McpStdioServers.class);
			assertThat(servers.list()).extracting(McpStdioServer::name).containsExactlyElementsOf(names);
			assertThat(servers.list()).allSatisfy((server) -> {
				assertThat(server.state()).isEqualTo(ServerState.RUNNING);
				assertThat(server.definition().spec().shutdown().worstCase()).isEqualTo(Duration.ofMillis(18600));
			});
		});
		assertThat(output).doesNotContain(WARNING);
	}

	@Test
	void noWarningForADisabledServer(CapturedOutput output) {
		this.runner.withPropertyValues(echo("off"))
			.withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=1s", "mcp.stdio.servers.off.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).doesNotContain(WARNING);
	}

	private String[] echo(String name) {
		String prefix = "mcp.stdio.servers." + name + ".";
		return new String[] { prefix + "command=sh", prefix + "args=" + Fixtures.script("echo.sh"),
				prefix + "env." + Fixtures.MARKER + "=" + this.fixtures.id() };
	}

	private static final class Recorder implements SmartLifecycle {

		private final String name;

		private final int phase;

		private final List<String> stops;

		private volatile boolean running;

		Recorder(String name, int phase, List<String> stops) {
			this.name = name;
			this.phase = phase;
			this.stops = stops;
		}

		@Override
		public void start() {
			this.running = true;
		}

		@Override
		public void stop() {
			this.stops.add(this.name);
			this.running = false;
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		@Override
		public int getPhase() {
			return this.phase;
		}

	}

}

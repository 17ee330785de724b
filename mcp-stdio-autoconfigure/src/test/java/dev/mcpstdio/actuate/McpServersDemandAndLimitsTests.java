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

package dev.mcpstdio.actuate;

import java.util.concurrent.TimeUnit;

import dev.mcpstdio.core.server.ExitCause;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lazy server with an idle timeout and a server with a memory cap, as the endpoint,
 * health and the metrics show them over real HTTP, with real processes.
 *
 * @author mcp-stdio authors
 */
@ActuateHttpTest
class McpServersDemandAndLimitsTests {

	private static final Fixtures fixtures = new Fixtures();

	@Autowired
	private RestTestClient client;

	@Autowired
	private McpStdioServers servers;

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		registry.add("mcp.stdio.resource-check-interval", () -> "200ms");
		ActuateTestApplication.server(registry, fixtures, "dl-lazy", "echo.sh");
		registry.add("mcp.stdio.servers.dl-lazy.start", () -> "lazy");
		registry.add("mcp.stdio.servers.dl-lazy.idle-timeout", () -> "1s");
		ActuateTestApplication.server(registry, fixtures, "dl-capped", "echo.sh");
		registry.add("mcp.stdio.servers.dl-capped.max-memory", () -> "40MB");
		registry.add("mcp.stdio.servers.dl-capped.restart.policy", () -> "on-failure");
		registry.add("mcp.stdio.servers.dl-capped.restart.initial-backoff", () -> "100ms");
	}

	@Test
	void lazyServerIsIdleAndUpUntilUsedThenIdleAgain() {
		JsonNode lazy = ActuateTestApplication.getJson(this.client, "/actuator/mcpservers/dl-lazy");
		assertThat(lazy.get("state").asString()).isEqualTo("IDLE");
		assertThat(lazy.get("liveProcesses").asInt()).isZero();
		assertThat(lazy.get("pid").isNull()).isTrue();
		assertThat(lazy.get("lastExit").isNull()).isTrue();
		JsonNode health = ActuateTestApplication.getJson(this.client, "/actuator/health");
		assertThat(health.get("components").get("mcpServers").get("status").asString()).isEqualTo("UP");
		assertThat(health.get("components").get("mcpServers").get("details").get("dl-lazy").asString())
			.isEqualTo("IDLE");
		assertThat(Prometheus.value(Prometheus.scrape(this.client), "mcp_stdio_processes{server=\"dl-lazy\"}"))
			.isZero();

		// its first message starts it
		McpStdioServer server = this.servers.get("dl-lazy");
		assertThat(server.request("r1", "{\"jsonrpc\":\"2.0\",\"id\":\"r1\",\"method\":\"ping\"}")
			.orTimeout(30, TimeUnit.SECONDS)
			.join()).contains("\"echo\":\"ping\"");
		Await.that("dl-lazy's one process", () -> server.treeStats().liveProcesses() == 1);
		lazy = ActuateTestApplication.getJson(this.client, "/actuator/mcpservers/dl-lazy");
		assertThat(lazy.get("state").asString()).isEqualTo("RUNNING");
		assertThat(lazy.get("liveProcesses").asInt()).isEqualTo(1);

		// a second of nothing: stopped, IDLE, still UP
		Await.that("dl-lazy idle", () -> server.state() == ServerState.IDLE && server.lastExit() != null
				&& server.treeStats().liveProcesses() == 0);
		lazy = ActuateTestApplication.getJson(this.client, "/actuator/mcpservers/dl-lazy");
		assertThat(lazy.get("state").asString()).isEqualTo("IDLE");
		assertThat(lazy.get("liveProcesses").asInt()).isZero();
		assertThat(lazy.get("lastExit").get("cause").asString()).isEqualTo("IDLE");
		assertThat(lazy.get("restarts").asInt()).isZero();
		health = ActuateTestApplication.getJson(this.client, "/actuator/health");
		assertThat(health.get("components").get("mcpServers").get("status").asString()).isEqualTo("UP");
		// the stop's duration is timed once the stop returns, a moment after the exit
		// shows
		String timed = "mcp_stdio_shutdown_seconds_count{outcome=\"IDLE\",server=\"dl-lazy\"} ";
		Await.that("dl-lazy's idle stop timed",
				() -> Prometheus.scrape(this.client)
					.lines()
					.anyMatch((line) -> line.startsWith(timed)
							&& Double.parseDouble(line.substring(timed.length()).trim().split(" ")[0]) == 1.0));
		String scrape = Prometheus.scrape(this.client);
		assertThat(Prometheus.value(scrape, "mcp_stdio_server_exits_total{cause=\"IDLE\",server=\"dl-lazy\"}"))
			.isEqualTo(1.0);
		assertThat(Prometheus.value(scrape, "mcp_stdio_shutdown_seconds_count{outcome=\"IDLE\",server=\"dl-lazy\"}"))
			.isEqualTo(1.0);
		assertThat(Prometheus.value(scrape, "mcp_stdio_server_up{server=\"dl-lazy\"}")).isZero();
	}

	@Test
	void serverOverItsMemoryShowsTheCauseAndIsRestarted() {
		McpStdioServer server = this.servers.get("dl-capped");
		assertThat(server.request("g1", "{\"jsonrpc\":\"2.0\",\"id\":\"g1\",\"method\":\"grow\"}")
			.orTimeout(30, TimeUnit.SECONDS)
			.join()).contains("\"echo\":\"grow\"");
		Await.that("dl-capped stopped and restarted", () -> server.exits(ExitCause.MEMORY_LIMIT) == 1
				&& server.state() == ServerState.RUNNING && server.clientConnection().generation() == 2);
		JsonNode capped = ActuateTestApplication.getJson(this.client, "/actuator/mcpservers/dl-capped");
		assertThat(capped.get("state").asString()).isEqualTo("RUNNING");
		assertThat(capped.get("restarts").asInt()).isEqualTo(1);
		assertThat(capped.get("lastExit").get("cause").asString()).isEqualTo("MEMORY_LIMIT");
		String scrape = Prometheus.scrape(this.client);
		assertThat(
				Prometheus.value(scrape, "mcp_stdio_server_exits_total{cause=\"MEMORY_LIMIT\",server=\"dl-capped\"}"))
			.isEqualTo(1.0);
		assertThat(
				Prometheus.value(scrape, "mcp_stdio_server_exits_total{cause=\"PROCESS_LIMIT\",server=\"dl-capped\"}"))
			.isZero();
		assertThat(Prometheus.value(scrape, "mcp_stdio_server_restarts_total{server=\"dl-capped\"}")).isEqualTo(1.0);
	}

}

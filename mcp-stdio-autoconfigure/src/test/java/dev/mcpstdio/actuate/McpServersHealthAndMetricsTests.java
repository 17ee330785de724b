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

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.McpServerExitedException;
import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for the {@code mcpServers} health contributor and the meters through a crash, a
 * restart by the policy and a failure, over real HTTP with real server processes.
 *
 * @author mcp-stdio authors
 */
@ActuateHttpTest
class McpServersHealthAndMetricsTests {

	private static final Fixtures fixtures = new Fixtures();

	@Autowired
	private RestTestClient client;

	@Autowired
	private McpStdioServers servers;

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		// this test stops and starts a server through the endpoint
		registry.add("management.endpoint.mcpservers.access", () -> "unrestricted");
		ActuateTestApplication.server(registry, fixtures, "hl-steady", "echo.sh");
		// required: an optional server's failure does not turn the application's health
		// DOWN
		ActuateTestApplication.server(registry, fixtures, "hl-fragile", "echo.sh").accept("required", "true");
		ActuateTestApplication.server(registry, fixtures, "hl-phoenix", "echo.sh");
		registry.add("mcp.stdio.servers.hl-phoenix.restart.policy", () -> "on-failure");
		registry.add("mcp.stdio.servers.hl-phoenix.restart.initial-backoff", () -> "100ms");
	}

	@Test
	void healthGoesDownWhenAServerFailsAndMetersFollowCrashesAndRestarts() throws Exception {
		JsonNode health = ActuateTestApplication.getJson(this.client, "/actuator/health");
		JsonNode mcp = health.get("components").get("mcpServers");
		assertThat(mcp.get("status").asString()).isEqualTo("UP");
		assertThat(mcp.get("details").get("hl-steady").asString()).isEqualTo("RUNNING");
		assertThat(mcp.get("details").get("hl-fragile").asString()).isEqualTo("RUNNING");
		assertThat(mcp.get("details").get("hl-phoenix").asString()).isEqualTo("RUNNING");

		// A crash of a server with on-failure: restarted by the policy, meters follow
		McpStdioServer phoenix = this.servers.get("hl-phoenix");
		StdioServerProcess first = phoenix.process();
		crash(phoenix);
		Await.that("hl-phoenix restarted",
				() -> phoenix.restarts() == 1 && phoenix.state() == ServerState.RUNNING && phoenix.process() != first);
		Prometheus.await(() -> Prometheus.scrape(this.client), "mcp_stdio_processes{server=\"hl-phoenix\"}", 1.0);
		String scrape = Prometheus.scrape(this.client);
		assertThat(Prometheus.value(scrape, "mcp_stdio_server_restarts_total{server=\"hl-phoenix\"}")).isEqualTo(1.0);
		assertThat(Prometheus.value(scrape, "mcp_stdio_server_exits_total{cause=\"UNEXPECTED\",server=\"hl-phoenix\"}"))
			.isEqualTo(1.0);
		assertThat(Prometheus.value(scrape, "mcp_stdio_server_up{server=\"hl-phoenix\"}")).isEqualTo(1.0);

		// A crash of a required server with no restart: FAILED, health DOWN
		McpStdioServer fragile = this.servers.get("hl-fragile");
		crash(fragile);
		Await.that("hl-fragile failed", () -> fragile.state() == ServerState.FAILED);
		String body = this.client.get()
			.uri("/actuator/health")
			.exchange()
			.expectStatus()
			.isEqualTo(503)
			.returnResult(String.class)
			.getResponseBody();
		health = ActuateTestApplication.readJson(body);
		assertThat(health.get("status").asString()).isEqualTo("DOWN");
		mcp = health.get("components").get("mcpServers");
		assertThat(mcp.get("status").asString()).isEqualTo("DOWN");
		assertThat(mcp.get("details").get("hl-fragile").asString()).isEqualTo("FAILED");
		assertThat(mcp.get("details").get("hl-steady").asString()).isEqualTo("RUNNING");
		scrape = Prometheus.scrape(this.client);
		assertThat(Prometheus.value(scrape, "mcp_stdio_processes{server=\"hl-fragile\"}")).isEqualTo(0.0);
		assertThat(Prometheus.value(scrape, "mcp_stdio_server_up{server=\"hl-fragile\"}")).isEqualTo(0.0);
		assertThat(Prometheus.value(scrape, "mcp_stdio_server_exits_total{cause=\"UNEXPECTED\",server=\"hl-fragile\"}"))
			.isEqualTo(1.0);
		assertThat(Prometheus.value(scrape, "mcp_stdio_server_restarts_total{server=\"hl-fragile\"}")).isEqualTo(0.0);

		// Started again through the endpoint: health is UP again
		this.client.post()
			.uri("/actuator/mcpservers/hl-fragile")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"action\":\"start\"}")
			.exchange()
			.expectStatus()
			.isOk();
		health = ActuateTestApplication.getJson(this.client, "/actuator/health");
		assertThat(health.get("components").get("mcpServers").get("status").asString()).isEqualTo("UP");
	}

	private void crash(McpStdioServer server) throws InterruptedException {
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(() -> server.request("crash-1", "{\"jsonrpc\":\"2.0\",\"id\":\"crash-1\",\"method\":\"crash\"}")
				.get(10, TimeUnit.SECONDS))
			.withCauseInstanceOf(McpServerExitedException.class);
	}

}

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
 * An optional server that failed or was stopped shows in the details of
 * {@code /actuator/health} but does not take the instance out (HTTP 200), over real HTTP;
 * a required one does (HTTP 503).
 *
 * @author mcp-stdio authors
 */
@ActuateHttpTest
class McpServersHealthOptionalTests {

	private static final Fixtures fixtures = new Fixtures();

	@Autowired
	private RestTestClient client;

	@Autowired
	private McpStdioServers servers;

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		ActuateTestApplication.server(registry, fixtures, "ho-optional", "echo.sh");
		ActuateTestApplication.server(registry, fixtures, "ho-stopped", "echo.sh");
		ActuateTestApplication.server(registry, fixtures, "ho-required", "echo.sh").accept("required", "true");
	}

	@Test
	void onlyARequiredServerTakesTheInstanceOut() {
		McpStdioServer optional = this.servers.get("ho-optional");
		kill(optional);
		Await.that("ho-optional FAILED", () -> optional.state() == ServerState.FAILED);
		this.servers.get("ho-stopped").stopServer();
		JsonNode health = ActuateTestApplication.getJson(this.client, "/actuator/health");
		assertThat(health.get("status").asString()).isEqualTo("UP");
		JsonNode mcp = health.get("components").get("mcpServers");
		assertThat(mcp.get("status").asString()).isEqualTo("UP");
		assertThat(mcp.get("details").get("ho-optional").asString()).isEqualTo("FAILED");
		assertThat(mcp.get("details").get("ho-stopped").asString()).isEqualTo("STOPPED");
		assertThat(mcp.get("details").get("ho-required").asString()).isEqualTo("RUNNING");

		McpStdioServer required = this.servers.get("ho-required");
		kill(required);
		Await.that("ho-required FAILED", () -> required.state() == ServerState.FAILED);
		String body = this.client.get()
			.uri("/actuator/health")
			.exchange()
			.expectStatus()
			.isEqualTo(503)
			.returnResult(String.class)
			.getResponseBody();
		mcp = ActuateTestApplication.readJson(body).get("components").get("mcpServers");
		assertThat(mcp.get("status").asString()).isEqualTo("DOWN");
		assertThat(mcp.get("details").get("ho-required").asString()).isEqualTo("FAILED");
	}

	/** Kill a server's process by its pid, as a cause outside the application would. */
	private static void kill(McpStdioServer server) {
		ProcessHandle process = ProcessHandle.of(server.pid()).orElseThrow();
		process.destroyForcibly();
		process.onExit().orTimeout(10, TimeUnit.SECONDS).join();
	}

}

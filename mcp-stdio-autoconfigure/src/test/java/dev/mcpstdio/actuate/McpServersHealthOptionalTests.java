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

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Fixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * An optional server that failed or was stopped shows in the details of
 * {@code /actuator/health} but does not take the instance out (HTTP 200), over real HTTP;
 * a required one does (HTTP 503).
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoneAliveAfterContext.class)
@SpringBootTest(classes = ActuateTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT)
@AutoConfigureRestTestClient
@DirtiesContext
class McpServersHealthOptionalTests {

	private static final Fixtures fixtures = new Fixtures();

	@Autowired
	private RestTestClient client;

	@Autowired
	private McpStdioServers servers;

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		ActuateTestApplication.commonProperties(registry);
		ActuateTestApplication.server(registry, fixtures, "ho-optional", "echo.sh");
		ActuateTestApplication.server(registry, fixtures, "ho-stopped", "echo.sh");
		ActuateTestApplication.server(registry, fixtures, "ho-required", "echo.sh").accept("required", "true");
	}

	@Test
	void onlyARequiredServerTakesTheInstanceOut() {
		McpStdioServer optional = this.servers.get("ho-optional");
		kill(optional);
		await(() -> optional.state() == ServerState.FAILED, "ho-optional FAILED");
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
		await(() -> required.state() == ServerState.FAILED, "ho-required FAILED");
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

	private static void await(BooleanSupplier condition, String what) {
		long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				fail("Timed out waiting for " + what);
			}
			Fixtures.sleep(20);
		}
	}

	/** Kill a server's process by its pid, as a cause outside the application would. */
	private static void kill(McpStdioServer server) {
		ProcessHandle process = ProcessHandle.of(server.pid()).orElseThrow();
		process.destroyForcibly();
		process.onExit().orTimeout(10, TimeUnit.SECONDS).join();
	}

}

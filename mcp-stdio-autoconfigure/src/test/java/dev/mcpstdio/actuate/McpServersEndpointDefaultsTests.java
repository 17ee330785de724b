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

import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Fixtures;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the endpoint as an application gets it without configuring it (only exposed):
 * read-only, and arguments and stderr tails withheld. Over real HTTP with real server
 * processes.
 *
 * @author mcp-stdio authors
 */
@ActuateHttpTest
class McpServersEndpointDefaultsTests {

	private static final Fixtures fixtures = new Fixtures();

	@Autowired
	private RestTestClient client;

	@Autowired
	private McpStdioServers servers;

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		ActuateTestApplication.server(registry, fixtures, "df-plain", "echo.sh", "--api-key", "sk-999", "--mode",
				"fast");
		ActuateTestApplication.server(registry, fixtures, "df-leaky", "leaks-secrets.sh");
	}

	@Test
	void writesAreRefusedAndTouchNothing() {
		McpStdioServer server = this.servers.get("df-plain");
		long pid = server.pid();
		for (String action : new String[] { "stop", "restart", "start" }) {
			this.client.post()
				.uri("/actuator/mcpservers/df-plain")
				.contentType(MediaType.APPLICATION_JSON)
				.body("{\"action\":\"" + action + "\"}")
				.exchange()
				.expectStatus()
				.isEqualTo(405);
		}
		// the reload of the whole set is a write too
		this.client.post()
			.uri("/actuator/mcpservers")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"action\":\"reload\"}")
			.exchange()
			.expectStatus()
			.isEqualTo(405);
		assertThat(this.servers.lastReload()).isNull();
		assertThat(server.state()).isEqualTo(ServerState.RUNNING);
		assertThat(server.pid()).isEqualTo(pid);
		assertThat(server.restarts()).isZero();
		// the reads stay
		assertThat(ActuateTestApplication.getJson(this.client, "/actuator/mcpservers/df-plain").get("pid").asLong())
			.isEqualTo(pid);
	}

	@Test
	void argumentsAndStderrAreWithheld() {
		String body = this.client.get()
			.uri("/actuator/mcpservers")
			.exchange()
			.expectStatus()
			.isOk()
			.returnResult(String.class)
			.getResponseBody();
		JsonNode servers = ActuateTestApplication.readJson(body).get("servers");
		assertThat(servers.get("df-plain").get("command").asString()).isEqualTo("sh ******");
		JsonNode leaky = servers.get("df-leaky");
		assertThat(leaky.get("state").asString()).isEqualTo("FAILED");
		assertThat(leaky.get("command").asString()).isEqualTo("sh ******");
		JsonNode lastExit = leaky.get("lastExit");
		assertThat(lastExit.get("exitCode").asInt()).isEqualTo(3);
		assertThat(lastExit.get("cause").asString()).isEqualTo("UNEXPECTED");
		assertThat(lastExit.get("stderrTail").values()).extracting(JsonNode::asString)
			.containsExactly("******", "******", "******");
		assertThat(body).doesNotContain("sk-999", "fast", "boom", "postgres", "abc123secret", "ghp_",
				Fixtures.script("echo.sh"));
	}

	@Test
	void unknownServerIsNotFound() {
		this.client.get().uri("/actuator/mcpservers/nope").exchange().expectStatus().isNotFound();
	}

}

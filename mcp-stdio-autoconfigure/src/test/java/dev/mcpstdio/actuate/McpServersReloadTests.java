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

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoneAliveAfterContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.http.MediaType;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of reloads over HTTP: the endpoint's reload action, its {@code reload} object,
 * the reload counter, the removed server's series, and Spring Cloud's refresh.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoneAliveAfterContext.class)
@SpringBootTest(classes = ActuateTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.ai.mcp.client.enabled=false",
				"management.endpoints.web.exposure.include=mcpservers,prometheus,refresh",
				"management.endpoint.mcpservers.access=unrestricted", "mcp.stdio.reload.enabled=true",
				"mcp.stdio.defaults.shutdown.drain-timeout=500ms", "mcp.stdio.defaults.shutdown.stdin-close-timeout=1s",
				"mcp.stdio.defaults.shutdown.terminate-timeout=1s",
				// Spring Cloud's refresh reads this file again; the test's own properties
				// are kept through it
				"spring.config.import=optional:file:target/mcp-stdio-reload-tests.properties",
				"spring.cloud.refresh.additional-property-sources-to-retain=Inlined Test Properties" })
@AutoConfigureRestTestClient
@DirtiesContext
class McpServersReloadTests {

	private static final Fixtures fixtures = new Fixtures();

	private static final Path FILE = write(Path.of("target", "mcp-stdio-reload-tests.json"),
			servers("rl-kept", "rl-removed"));

	private static final Path REFRESHED = write(Path.of("target", "mcp-stdio-reload-tests.properties"), "");

	@Autowired
	private RestTestClient client;

	@Autowired
	private McpStdioServers servers;

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		registry.add("mcp.stdio.servers-configuration", () -> FILE.toAbsolutePath().toString());
	}

	@Test
	void theReloadActionAppliesTheFileAndTheEndpointMetricsAndRefreshFollow() throws Exception {
		JsonNode before = ActuateTestApplication.getJson(this.client, "/actuator/mcpservers");
		assertThat(before.get("reload").isNull()).isTrue();
		long keptPid = this.servers.get("rl-kept").pid();
		Prometheus.await(() -> Prometheus.scrape(this.client), "mcp_stdio_processes{server=\"rl-removed\"}", 1.0);

		write(FILE, servers("rl-kept", "rl-added"));
		JsonNode reloaded = post("{\"action\":\"reload\"}", 200);
		JsonNode reload = reloaded.get("reload");
		assertThat(reload.get("outcome").asString()).isEqualTo("APPLIED");
		assertThat(reload.get("added").values()).extracting(JsonNode::asString).containsExactly("rl-added");
		assertThat(reload.get("removed").values()).extracting(JsonNode::asString).containsExactly("rl-removed");
		assertThat(reload.get("changed").values()).isEmpty();
		assertThat(reload.get("at").asString()).isNotEmpty();
		assertThat(reload.get("problem").isNull()).isTrue();
		assertThat(reloaded.get("servers").has("rl-removed")).isFalse();
		assertThat(reloaded.get("servers").get("rl-added").get("state").asString()).isEqualTo("RUNNING");
		assertThat(reloaded.get("servers").get("rl-kept").get("pid").asLong()).isEqualTo(keptPid);
		this.client.get().uri("/actuator/mcpservers/rl-removed").exchange().expectStatus().isNotFound();

		String scrape = Prometheus.scrape(this.client);
		assertThat(Prometheus.value(scrape, "mcp_stdio_reloads_total{outcome=\"APPLIED\"}")).isEqualTo(1.0);
		assertThat(scrape).doesNotContain("server=\"rl-removed\"");
		Prometheus.await(() -> Prometheus.scrape(this.client), "mcp_stdio_processes{server=\"rl-added\"}", 1.0);
		// a server the reload added is observed like one the context started
		this.servers.get("rl-added")
			.request("ra-1", "{\"jsonrpc\":\"2.0\",\"id\":\"ra-1\",\"method\":\"tools/list\"}")
			.get(10, TimeUnit.SECONDS);
		Map<String, String> observed = Map.of("server", "rl-added", "mcp_method_name", "tools/list");
		List<Prometheus.Sample> samples = Await.within(Duration.ofSeconds(10))
			.every(Duration.ofMillis(50))
			.value(() -> Prometheus.samples(Prometheus.scrape(this.client),
					"mcp_client_operation_duration_seconds_count"),
					(read) -> read.stream().anyMatch((sample) -> sample.has(observed) && sample.value() == 1.0));
		assertThat(samples).anyMatch((sample) -> sample.has(observed) && sample.value() == 1.0);

		// a broken file: rejected, everything left as it was, and said so
		write(FILE, "{\"mcpServers\": {\"rl-kept\": {\"args\": []}}}");
		JsonNode rejected = post("{\"action\":\"reload\"}", 200).get("reload");
		assertThat(rejected.get("outcome").asString()).isEqualTo("REJECTED");
		assertThat(rejected.get("problem").asString()).contains("rl-kept", "command");
		assertThat(this.servers.get("rl-added").state()).isEqualTo(ServerState.RUNNING);
		assertThat(this.servers.get("rl-kept").pid()).isEqualTo(keptPid);
		assertThat(Prometheus.value(Prometheus.scrape(this.client), "mcp_stdio_reloads_total{outcome=\"REJECTED\"}"))
			.isEqualTo(1.0);
		write(FILE, servers("rl-kept", "rl-added"));
		assertThat(post("{\"action\":\"reload\"}", 200).get("reload").get("outcome").asString()).isEqualTo("UNCHANGED");
		assertThat(post("{\"action\":\"explode\"}", 400).toString()).contains("reload");

		// Spring Cloud's refresh: a changed property reloads, in the background
		write(REFRESHED,
				"mcp.stdio.servers.rl-refreshed.command=sh\nmcp.stdio.servers.rl-refreshed.args[0]="
						+ Fixtures.script("echo.sh") + "\nmcp.stdio.servers.rl-refreshed.env." + Fixtures.MARKER + "="
						+ fixtures.id() + "\n");
		this.client.post().uri("/actuator/refresh").exchange().expectStatus().isOk();
		Await.that("the refreshed server", () -> this.servers.find("rl-refreshed") != null
				&& this.servers.get("rl-refreshed").state() == ServerState.RUNNING);
		assertThat(this.servers.get("rl-kept").pid()).isEqualTo(keptPid);
	}

	private JsonNode post(String body, int status) {
		String response = this.client.post()
			.uri("/actuator/mcpservers")
			.contentType(MediaType.APPLICATION_JSON)
			.body(body)
			.exchange()
			.expectStatus()
			.isEqualTo(status)
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
		return JsonMapper.shared().readTree(response);
	}

	private static String servers(String... names) {
		StringBuilder json = new StringBuilder("{\"mcpServers\": {");
		for (int i = 0; i < names.length; i++) {
			json.append((i > 0) ? ", " : "")
				.append('"')
				.append(names[i])
				.append("\": {\"command\": \"sh\", \"args\": [\"")
				.append(Fixtures.script("echo.sh"))
				.append("\"], \"env\": {\"")
				.append(Fixtures.MARKER)
				.append("\": \"")
				.append(fixtures.id())
				.append("\"}}");
		}
		return json.append("}}").toString();
	}

	private static Path write(Path file, String content) {
		try {
			Files.createDirectories(file.toAbsolutePath().getParent());
			return Files.writeString(file, content);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}

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

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

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

/**
 * Tests for {@link McpServersEndpoint} over real HTTP with real server processes.
 *
 * @author mcp-stdio authors
 */
@ActuateHttpTest
class McpServersEndpointTests {

	private static final Fixtures fixtures = new Fixtures();

	private static final String GITHUB_TOKEN = "ghp_0123456789abcdefghijABCDEFGHIJ012345";

	/** What the secretive server's arguments and the leaky server's stderr hide. */
	private static final String[] SECRETS = { "abc123", "sk-999", "xyz789", "hunter2", "pw123", "bearer456",
			"apikey789", "at321", "p@ss", "w0rd", "tok654", GITHUB_TOKEN, "abc123secret", "ghp_0123" };

	@Autowired
	private RestTestClient client;

	@Autowired
	private McpStdioServers servers;

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		// this test restarts, stops and starts servers and reads their values
		registry.add("management.endpoint.mcpservers.access", () -> "unrestricted");
		registry.add("management.endpoint.mcpservers.show-values", () -> "always");
		ActuateTestApplication.server(registry, fixtures, "ep-plain", "echo.sh");
		ActuateTestApplication.server(registry, fixtures, "ep-family", "with-children.sh");
		ActuateTestApplication.server(registry, fixtures, "ep-crashy", "instant-exit.sh");
		ActuateTestApplication.server(registry, fixtures, "ep-secretive", "echo.sh", "--token=abc123", "--api-key",
				"sk-999", "OPENAI_API_KEY=xyz789", "--db-password", "hunter2", "https://alice:pw123@example.com/x",
				"--verbose", "--header", "Authorization: Bearer bearer456", "--header=X-API-Key: apikey789",
				"https://h/x?a=1&access_token=at321", "postgres://bob:p@ss/w0rd@db/app", "--token:tok654",
				GITHUB_TOKEN);
		ActuateTestApplication.server(registry, fixtures, "ep-leaky", "leaks-secrets.sh");
		ActuateTestApplication.server(registry, fixtures, "ep-disabled", "echo.sh").accept("enabled", "false");
		ActuateTestApplication.server(registry, fixtures, "ep-restartable", "echo.sh");
		ActuateTestApplication.server(registry, fixtures, "ep-stoppable", "echo.sh");
		ActuateTestApplication.server(registry, fixtures, "ep-target", "echo.sh");
	}

	@Test
	void runningServer() {
		McpStdioServer server = this.servers.get("ep-plain");
		// the fixture forks helpers for each message, the handshake's included
		awaitLiveProcesses("ep-plain", 1);
		JsonNode plain = ActuateTestApplication.getJson(this.client, "/actuator/mcpservers")
			.get("servers")
			.get("ep-plain");
		assertThat(plain.get("state").asString()).isEqualTo("RUNNING");
		assertThat(plain.get("initialized").asBoolean()).isTrue();
		long pid = plain.get("pid").asLong();
		assertThat(pid).isEqualTo(server.pid()).isPositive();
		assertThat(Files.exists(Path.of("/proc/" + pid))).isTrue();
		assertThat(plain.get("liveProcesses").asInt()).isEqualTo(1);
		assertThat(plain.get("memoryBytes").asLong()).isPositive();
		assertThat(plain.get("command").asString()).isEqualTo("sh " + Fixtures.script("echo.sh"));
		assertThat(plain.get("startedAt").asString()).isEqualTo(server.startedAt().toString());
		assertThat(plain.get("restarts").asLong()).isZero();
		assertThat(plain.get("pendingRequests").asInt()).isZero();
		assertThat(plain.has("lastExit")).isTrue();
		assertThat(plain.get("lastExit").isNull()).isTrue();
		assertThat(plain.has("env")).isFalse();
		// the fields of the contract, in its order (docs/observability.md)
		assertThat(plain.propertyNames()).containsExactly("state", "initialized", "pid", "liveProcesses", "memoryBytes",
				"command", "startedAt", "restarts", "pendingRequests", "lastExit");
	}

	@Test
	void readOneServer() {
		JsonNode plain = ActuateTestApplication.getJson(this.client, "/actuator/mcpservers/ep-plain");
		assertThat(plain.get("state").asString()).isEqualTo("RUNNING");
		assertThat(plain.get("pid").asLong()).isEqualTo(this.servers.get("ep-plain").pid());
	}

	@Test
	void serverWithChildrenCountsItsWholeTree() {
		awaitLiveProcesses("ep-family", 4);
		JsonNode all = ActuateTestApplication.getJson(this.client, "/actuator/mcpservers");
		JsonNode family = all.get("servers").get("ep-family");
		assertThat(family.get("state").asString()).isEqualTo("RUNNING");
		// sh, two sleep children and a subshell's sleep grandchild
		assertThat(family.get("liveProcesses").asInt()).isEqualTo(4);
		int sum = 0;
		for (JsonNode server : all.get("servers").values()) {
			sum += server.get("liveProcesses").asInt();
		}
		assertThat(all.get("liveProcesses").asInt()).isEqualTo(sum).isGreaterThanOrEqualTo(4);
	}

	@Test
	void crashedServerShowsItsExit() {
		JsonNode crashy = ActuateTestApplication.getJson(this.client, "/actuator/mcpservers/ep-crashy");
		assertThat(crashy.get("state").asString()).isEqualTo("FAILED");
		assertThat(crashy.get("initialized").asBoolean()).isFalse();
		assertThat(crashy.get("pid").isNull()).isTrue();
		assertThat(crashy.get("liveProcesses").asInt()).isZero();
		assertThat(crashy.get("memoryBytes").asLong()).isZero();
		JsonNode lastExit = crashy.get("lastExit");
		assertThat(lastExit.get("exitCode").asInt()).isEqualTo(3);
		assertThat(lastExit.get("cause").asString()).isEqualTo("UNEXPECTED");
		assertThat(lastExit.get("at").asString()).isNotEmpty();
		assertThat(lastExit.get("stderrTail").values()).extracting(JsonNode::asString)
			.containsExactly("boom: missing dependency");
	}

	@Test
	void unknownServerIsNotFound() {
		this.client.get().uri("/actuator/mcpservers/nope").exchange().expectStatus().isNotFound();
		this.client.post()
			.uri("/actuator/mcpservers/nope")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"action\":\"restart\"}")
			.exchange()
			.expectStatus()
			.isNotFound();
	}

	@Test
	void unknownActionIsABadRequest() {
		long pid = this.servers.get("ep-plain").pid();
		this.client.post()
			.uri("/actuator/mcpservers/ep-plain")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"action\":\"explode\"}")
			.exchange()
			.expectStatus()
			.isBadRequest();
		assertThat(this.servers.get("ep-plain").pid()).isEqualTo(pid);
	}

	@Test
	void startOfADisabledServerIsAConflict() {
		String body = this.client.post()
			.uri("/actuator/mcpservers/ep-disabled")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"action\":\"start\"}")
			.exchange()
			.expectStatus()
			.isEqualTo(409)
			.returnResult(String.class)
			.getResponseBody();
		JsonNode conflict = ActuateTestApplication.readJson(body);
		assertThat(conflict.get("message").asString()).isEqualTo("MCP server 'ep-disabled' is disabled");
		assertThat(conflict.get("server").get("state").asString()).isEqualTo("DISABLED");
		assertThat(this.servers.get("ep-disabled").pid()).isNull();
	}

	@Test
	void restartBringsANewPid() {
		McpStdioServer server = this.servers.get("ep-restartable");
		StdioServerProcess before = server.process();
		String body = this.client.post()
			.uri("/actuator/mcpservers/ep-restartable")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"action\":\"restart\"}")
			.exchange()
			.expectStatus()
			.isOk()
			.returnResult(String.class)
			.getResponseBody();
		JsonNode restarted = ActuateTestApplication.readJson(body);
		assertThat(server.process()).isNotSameAs(before);
		assertThat(restarted.get("pid").asLong()).isEqualTo(server.pid());
		assertThat(restarted.get("state").asString()).isEqualTo("RUNNING");
		assertThat(restarted.get("restarts").asLong()).isEqualTo(1);
		// read once at the restart; the count is settled by the wait below
		assertThat(restarted.get("liveProcesses").asInt()).isPositive();
		awaitLiveProcesses("ep-restartable", 1);
		assertThat(restarted.get("lastExit").get("cause").asString()).isEqualTo("CLEAN");
		// ended: asked of the process, not of its pid, which may be another's now
		assertThat(before.exit()).isDone();
		String prometheus = Prometheus.scrape(this.client);
		assertThat(Prometheus.value(prometheus, "mcp_stdio_server_restarts_total{server=\"ep-restartable\"}"))
			.isEqualTo(1.0);
		assertThat(Prometheus.value(prometheus,
				"mcp_stdio_shutdown_seconds_count{outcome=\"CLEAN\",server=\"ep-restartable\"}"))
			.isEqualTo(1.0);
	}

	@Test
	void prometheusCountsProcessesBeforeAndAfterAStop() {
		// the fixtures fork helpers for each message, the handshake's included
		Prometheus.await(() -> Prometheus.scrape(this.client), "mcp_stdio_processes{server=\"ep-stoppable\"}", 1.0);
		Prometheus.await(() -> Prometheus.scrape(this.client), "mcp_stdio_processes{server=\"ep-family\"}", 4.0);
		String before = Prometheus.scrape(this.client);
		assertThat(Prometheus.value(before, "mcp_stdio_processes{server=\"ep-crashy\"}")).isEqualTo(0.0);
		assertThat(Prometheus.value(before, "mcp_stdio_memory_bytes{server=\"ep-stoppable\"}")).isPositive();
		assertThat(Prometheus.value(before, "mcp_stdio_server_up{server=\"ep-stoppable\"}")).isEqualTo(1.0);
		assertThat(Prometheus.value(before, "mcp_stdio_server_up{server=\"ep-crashy\"}")).isEqualTo(0.0);
		assertThat(Prometheus.value(before, "mcp_stdio_server_exits_total{cause=\"UNEXPECTED\",server=\"ep-crashy\"}"))
			.isEqualTo(1.0);
		assertThat(Prometheus.value(before, "mcp_stdio_requests_pending{server=\"ep-stoppable\"}")).isEqualTo(0.0);
		long pid = this.servers.get("ep-stoppable").pid();
		String body = this.client.post()
			.uri("/actuator/mcpservers/ep-stoppable")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"action\":\"stop\"}")
			.exchange()
			.expectStatus()
			.isOk()
			.returnResult(String.class)
			.getResponseBody();
		JsonNode stopped = ActuateTestApplication.readJson(body);
		assertThat(stopped.get("state").asString()).isEqualTo("STOPPED");
		assertThat(stopped.get("liveProcesses").asInt()).isZero();
		assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
		String after = Prometheus.scrape(this.client);
		assertThat(Prometheus.value(after, "mcp_stdio_processes{server=\"ep-stoppable\"}")).isEqualTo(0.0);
		assertThat(Prometheus.value(after, "mcp_stdio_memory_bytes{server=\"ep-stoppable\"}")).isEqualTo(0.0);
		assertThat(Prometheus.value(after, "mcp_stdio_server_up{server=\"ep-stoppable\"}")).isEqualTo(0.0);
		assertThat(Prometheus.value(after, "mcp_stdio_server_exits_total{cause=\"CLEAN\",server=\"ep-stoppable\"}"))
			.isEqualTo(1.0);
		assertThat(
				Prometheus.value(after, "mcp_stdio_shutdown_seconds_count{outcome=\"CLEAN\",server=\"ep-stoppable\"}"))
			.isEqualTo(1.0);
		assertThat(this.servers.get("ep-stoppable").state()).isEqualTo(ServerState.STOPPED);
		// and it can be started again
		this.client.post()
			.uri("/actuator/mcpservers/ep-stoppable")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"action\":\"start\"}")
			.exchange()
			.expectStatus()
			.isOk();
		awaitLiveProcesses("ep-stoppable", 1);
		Prometheus.await(() -> Prometheus.scrape(this.client), "mcp_stdio_processes{server=\"ep-stoppable\"}", 1.0);
	}

	@Test
	void secretLookingArgumentsAreMasked() {
		String body = this.client.get()
			.uri("/actuator/mcpservers/ep-secretive")
			.exchange()
			.expectStatus()
			.isOk()
			.returnResult(String.class)
			.getResponseBody();
		assertThat(ActuateTestApplication.readJson(body).get("command").asString())
			.isEqualTo("sh " + Fixtures.script("echo.sh") + " --token=****** --api-key ****** OPENAI_API_KEY=******"
					+ " --db-password ****** https://alice:******@example.com/x --verbose"
					+ " --header Authorization: Bearer ****** --header=X-API-Key: ******"
					+ " https://h/x?a=1&access_token=****** postgres://bob:******@db/app --token:****** ghp_******");
		assertThat(body).doesNotContain(SECRETS).doesNotContain(fixtures.id());
	}

	@Test
	void stderrTailIsSanitized() {
		String body = this.client.get()
			.uri("/actuator/mcpservers/ep-leaky")
			.exchange()
			.expectStatus()
			.isOk()
			.returnResult(String.class)
			.getResponseBody();
		JsonNode leaky = ActuateTestApplication.readJson(body);
		assertThat(leaky.get("state").asString()).isEqualTo("FAILED");
		assertThat(leaky.get("lastExit").get("stderrTail").values()).extracting(JsonNode::asString)
			.containsExactly("boom: token=******", "connecting to postgres://bob:******@db:5432/app failed",
					"Authorization: Bearer ******");
		assertThat(body).doesNotContain(SECRETS);
	}

	@Test
	void failedActionTellsWhyWithoutSecrets() {
		String body = this.client.post()
			.uri("/actuator/mcpservers/ep-leaky")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"action\":\"start\"}")
			.exchange()
			.expectStatus()
			.isEqualTo(500)
			.returnResult(String.class)
			.getResponseBody();
		JsonNode failure = ActuateTestApplication.readJson(body);
		assertThat(failure.get("message").asString()).startsWith(
				"MCP server 'ep-leaky' process exited unexpectedly with exit code 3; stderr: boom: token=******");
		assertThat(failure.get("server").get("state").asString()).isEqualTo("FAILED");
		assertThat(body).doesNotContain(SECRETS);
	}

	@Test
	void nameInTheBodyOrQueryStringIsRefusedAndActsOnNoServer() {
		McpStdioServer target = this.servers.get("ep-target");
		StdioServerProcess before = target.process();
		String stopTarget = "{\"action\":\"stop\",\"name\":\"ep-target\"}";
		assertNotNamedByPath(post("/actuator/mcpservers/nosuch", stopTarget));
		assertNotNamedByPath(post("/actuator/mcpservers/ep-plain", stopTarget));
		assertNotNamedByPath(post("/actuator/mcpservers/nosuch?name=ep-target", "{\"action\":\"stop\"}"));
		assertNotNamedByPath(post("/actuator/mcpservers/nosuch?name=ep-target&name=ep-plain", "{\"action\":\"stop\"}"));
		// nor is one server read through another's path
		RestTestClient.ResponseSpec read = this.client.get()
			.uri("/actuator/mcpservers/nosuch?name=ep-target")
			.exchange();
		assertThat(assertNotNamedByPath(read)).doesNotContain("RUNNING", "pid");
		assertThat(target.state()).isEqualTo(ServerState.RUNNING);
		assertThat(target.process()).isSameAs(before);
		assertThat(before.exit()).isNotDone();
		assertThat(this.servers.get("ep-plain").state()).isEqualTo(ServerState.RUNNING);
	}

	@Test
	void withoutTheRequestsPathNoServerIsServed() {
		// where the web server does not show the path (no Spring MVC request here), the
		// name could have come from the body or the query string
		assertThat(McpServersEndpointWebExtension.notNamedByPath("ep-plain")).startsWith(
				"This web server does not show the endpoint which server the request's path names (Spring MVC does)");
	}

	private RestTestClient.ResponseSpec post(String uri, String body) {
		return this.client.post().uri(uri).contentType(MediaType.APPLICATION_JSON).body(body).exchange();
	}

	private static String assertNotNamedByPath(RestTestClient.ResponseSpec response) {
		String body = response.expectStatus().isBadRequest().returnResult(String.class).getResponseBody();
		assertThat(ActuateTestApplication.readJson(body).get("message").asString())
			.isEqualTo("The server is named by the path only; remove 'name' from the request's body and query string");
		return body;
	}

	private void awaitLiveProcesses(String server, int expected) {
		int live = Await.within(Duration.ofSeconds(10))
			.every(Duration.ofMillis(50))
			.value(() -> ActuateTestApplication.getJson(this.client, "/actuator/mcpservers/" + server)
				.get("liveProcesses")
				.asInt(), (read) -> read == expected);
		assertThat(live).as("live processes of " + server).isEqualTo(expected);
	}

}

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
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import dev.mcpstdio.McpServerExitedException;
import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.fail;

/**
 * Tests of the per-request and per-session meters as Prometheus scrapes them over real
 * HTTP, with real server processes: {@code mcp_client_operation_duration_seconds} with
 * its buckets and the conventions' labels, {@code error_type} on failures, the session of
 * a process that crashed, and the gauges the alert rules read.
 *
 * @author mcp-stdio authors
 */
@ActuateHttpTest
class McpClientMetricsTests {

	private static final Fixtures fixtures = new Fixtures();

	private static final String OPERATION = "mcp_client_operation_duration_seconds";

	@Autowired
	private RestTestClient client;

	@Autowired
	private McpStdioServers servers;

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		ActuateTestApplication.server(registry, fixtures, "cm-tools", "tools.sh");
		registry.add("mcp.stdio.servers.cm-tools.max-memory", () -> "256MB");
		ActuateTestApplication.server(registry, fixtures, "cm-phoenix", "tools.sh");
		registry.add("mcp.stdio.servers.cm-phoenix.restart.policy", () -> "on-failure");
		registry.add("mcp.stdio.servers.cm-phoenix.restart.initial-backoff", () -> "100ms");
	}

	@Test
	void aToolCallIsScrapedWithItsBucketsAndAFailureWithItsErrorType() throws Exception {
		McpStdioServer tools = this.servers.get("cm-tools");
		tools.request("m-1", toolCall("m-1", "echo")).get(10, TimeUnit.SECONDS);
		tools.request("m-2", toolCall("m-2", "fail")).get(10, TimeUnit.SECONDS);
		tools.request("m-3", "{\"jsonrpc\":\"2.0\",\"id\":\"m-3\",\"method\":\"broken\"}").get(10, TimeUnit.SECONDS);
		// a request's observation ends right after its caller got the response
		String scrape = scrapeWhen((text) -> text.contains("error_type=\"-32601\"")
				&& text.contains("gen_ai_tool_name=\"fail\"") && text.contains("gen_ai_tool_name=\"echo\""));

		List<Prometheus.Sample> buckets = Prometheus.samples(scrape, OPERATION + "_bucket");
		Map<String, String> echo = Map.of("mcp_method_name", "tools/call", "gen_ai_tool_name", "echo",
				"network_transport", "pipe", "server", "cm-tools", "error_type", "");
		assertThat(buckets).filteredOn((sample) -> sample.has(echo))
			.extracting((sample) -> sample.labels().get("le"))
			.containsExactly("0.001", "0.0025", "0.005", "0.01", "0.02", "0.05", "0.1", "0.2", "0.5", "1.0", "2.0",
					"5.0", "10.0", "30.0", "60.0", "120.0", "300.0", "+Inf");
		assertThat(value(buckets, echo, "+Inf")).isEqualTo(1.0);
		// the same label names on every series, the conventions' and nothing else
		assertThat(buckets)
			.allSatisfy((sample) -> assertThat(sample.labels().keySet()).containsExactlyInAnyOrder("error_type",
					"gen_ai_prompt_name", "gen_ai_tool_name", "mcp_method_name", "network_transport", "server", "le"));
		assertThat(scrape).doesNotContain("mcp_client_operation_duration_active");
		assertThat(value(Prometheus.samples(scrape, OPERATION + "_count"), echo, null)).isEqualTo(1.0);

		Map<String, String> failedTool = Map.of("mcp_method_name", "tools/call", "gen_ai_tool_name", "fail", "server",
				"cm-tools", "error_type", "tool_error");
		assertThat(value(buckets, failedTool, "+Inf")).isEqualTo(1.0);
		Map<String, String> rpcError = Map.of("mcp_method_name", "broken", "gen_ai_tool_name", "", "server", "cm-tools",
				"error_type", "-32601");
		assertThat(value(buckets, rpcError, "+Inf")).isEqualTo(1.0);
		// the server's own handshake at start is part of its start, not a request of the
		// application's
		assertThat(Prometheus.samples(scrape, OPERATION + "_count"))
			.noneMatch((sample) -> "initialize".equals(sample.labels().get("mcp_method_name")));

		// no process of cm-tools has ended yet: its session timer is there, at 0, for
		// rates
		Map<String, String> noSession = Map.of("server", "cm-tools", "network_transport", "pipe", "error_type", "");
		assertThat(value(Prometheus.samples(scrape, "mcp_client_session_duration_seconds_count"), noSession, null))
			.isZero();

		// what the alert rules and the dashboard read
		assertThat(Prometheus.value(scrape, "mcp_stdio_memory_max_bytes{server=\"cm-tools\"}"))
			.isEqualTo(256.0 * 1024 * 1024);
		assertThat(scrape).doesNotContain("mcp_stdio_memory_max_bytes{server=\"cm-phoenix\"}");
		assertThat(Prometheus.value(scrape, "mcp_stdio_server_state{server=\"cm-tools\",state=\"RUNNING\"}"))
			.isEqualTo(1.0);
		assertThat(Prometheus.value(scrape, "mcp_stdio_server_state{server=\"cm-tools\",state=\"FAILED\"}"))
			.isEqualTo(0.0);
	}

	@Test
	void aProcessGenerationThatCrashedIsASessionWithItsCause() throws Exception {
		McpStdioServer phoenix = this.servers.get("cm-phoenix");
		StdioServerProcess first = phoenix.process();
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(() -> phoenix.request("p-1", "{\"jsonrpc\":\"2.0\",\"id\":\"p-1\",\"method\":\"crash\"}")
				.get(10, TimeUnit.SECONDS))
			.withCauseInstanceOf(McpServerExitedException.class);
		Await.that("cm-phoenix restarted", () -> phoenix.state() == ServerState.RUNNING && phoenix.process() != first);
		String scrape = scrapeWhen((text) -> text.contains("mcp_method_name=\"crash\""));
		Map<String, String> crashed = Map.of("server", "cm-phoenix", "network_transport", "pipe", "error_type",
				"UNEXPECTED");
		assertThat(value(Prometheus.samples(scrape, "mcp_client_session_duration_seconds_count"), crashed, null))
			.isEqualTo(1.0);
		assertThat(value(Prometheus.samples(scrape, "mcp_client_session_duration_seconds_bucket"), crashed, "+Inf"))
			.isEqualTo(1.0);
		// the request the crash cut short
		Map<String, String> cutShort = Map.of("server", "cm-phoenix", "mcp_method_name", "crash", "error_type",
				"dev.mcpstdio.McpServerExitedException");
		assertThat(value(Prometheus.samples(scrape, OPERATION + "_count"), cutShort, null)).isEqualTo(1.0);
	}

	private static double value(List<Prometheus.Sample> samples, Map<String, String> labels, String le) {
		return samples.stream()
			.filter((sample) -> sample.has(labels) && (le == null || le.equals(sample.labels().get("le"))))
			.mapToDouble(Prometheus.Sample::value)
			.reduce((a, b) -> fail("more than one sample with " + labels + " and le " + le + ": " + samples))
			.orElseGet(() -> fail("no sample with " + labels + " and le " + le + " in " + samples));
	}

	private static String toolCall(String id, String tool) {
		return "{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
				+ "\",\"arguments\":{}}}";
	}

	private String scrapeWhen(Predicate<String> ready) {
		return Await.within(Duration.ofSeconds(10))
			.every(Duration.ofMillis(50))
			.value(() -> Prometheus.scrape(this.client), ready);
	}

}

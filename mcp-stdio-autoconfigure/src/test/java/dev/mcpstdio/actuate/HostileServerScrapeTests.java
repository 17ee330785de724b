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
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.ai.TestMcpServer;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.web.servlet.client.RestTestClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A hostile server's values over real HTTP: JSON-RPC error codes hundreds of thousands of
 * digits long and tool names of any length neither grow a label nor break the Prometheus
 * scrape, and the endpoint shows its stderr escaped and bounded.
 *
 * @author mcp-stdio authors
 */
@ActuateHttpTest
class HostileServerScrapeTests {

	private static final Fixtures fixtures = new Fixtures();

	@Autowired
	private RestTestClient client;

	@Autowired
	private McpStdioServers servers;

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		List<String> command = Fixtures.java(TestMcpServer.class.getName());
		String prefix = "mcp.stdio.servers.hostile.";
		registry.add(prefix + "command", () -> command.get(0));
		for (int i = 1; i < command.size(); i++) {
			String arg = command.get(i);
			registry.add(prefix + "args[" + (i - 1) + "]", () -> arg);
		}
		registry.add(prefix + "env." + Fixtures.MARKER, fixtures::id);
		registry.add("management.endpoint.mcpservers.show-values", () -> "always");
	}

	@Test
	void hugeValuesNeitherGrowALabelNorBreakTheScrape() throws Exception {
		McpStdioServer hostile = this.servers.get("hostile");
		for (int i = 0; i < 6; i++) {
			// a 2 MB integer as the code of a JSON-RPC error
			call(hostile, "huge-" + i, "huge_code", "{\"digits\":2000000}");
			call(hostile, "long-" + i, "y".repeat(1000 + i), "{}");
		}
		String scrape = Prometheus.scrape(this.client);
		assertThat(scrape.length()).isLessThan(1_000_000);
		List<Prometheus.Sample> samples = Prometheus.samples(scrape, "mcp_client_operation_duration_seconds_count");
		assertThat(samples).anySatisfy((sample) -> assertThat(sample.labels()).containsEntry("error_type", "_OTHER"));
		assertThat(samples)
			.anySatisfy((sample) -> assertThat(sample.labels()).containsEntry("gen_ai_tool_name", "_OTHER")
				.containsEntry("mcp_method_name", "tools/call"));
		assertThat(samples).allSatisfy((sample) -> assertThat(sample.labels().values())
			.allSatisfy((value) -> assertThat(value).hasSizeLessThanOrEqualTo(128)));
		// its last words: escaped and bounded in the endpoint's stderr tail
		call(hostile, "say-1", "say", "{\"text\":\"" + "z".repeat(20_000) + "\"}");
		hostile.request("crash-1", "{\"jsonrpc\":\"2.0\",\"id\":\"crash-1\",\"method\":\"tools/call\",\"params\":"
				+ "{\"name\":\"crash\",\"arguments\":{\"stderr\":\"\\u001b[31mred\\r forged\"}}}");
		Await.within(Duration.ofSeconds(20)).until("hostile FAILED", () -> hostile.state() == ServerState.FAILED);
		JsonNode tail = ActuateTestApplication.getJson(this.client, "/actuator/mcpservers/hostile")
			.get("lastExit")
			.get("stderrTail");
		assertThat(tail).isNotNull();
		assertThat(tail.toString()).doesNotContain("\\u001b").contains("\\\\u001B[31mred\\\\u000D forged");
		tail.forEach((line) -> assertThat(line.asString()).hasSizeLessThanOrEqualTo(8 * 1024 + 20));
	}

	private static void call(McpStdioServer server, String id, String tool, String arguments) throws Exception {
		server
			.request(id,
					"{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"method\":\"tools/call\",\"params\":{\"name\":\""
							+ tool + "\",\"arguments\":" + arguments + "}}")
			.get(30, TimeUnit.SECONDS);
	}

}

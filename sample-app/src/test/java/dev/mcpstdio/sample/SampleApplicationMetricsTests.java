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

package dev.mcpstdio.sample;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.MediaType;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The per-request telemetry of the sample app as Prometheus scrapes it over real HTTP:
 * after one tool call through Spring AI's client, the histogram buckets of
 * {@code mcp_client_operation_duration_seconds} with the OpenTelemetry MCP labels; after
 * a call whose tool failed, the same with {@code error_type}.
 *
 * @author mcp-stdio authors
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureRestTestClient
@DirtiesContext
class SampleApplicationMetricsTests {

	private static final String BUCKET = "mcp_client_operation_duration_seconds_bucket{";

	@Autowired
	RestTestClient client;

	@Test
	void aToolCallIsScrapedWithTheConventionsLabelsAndAFailedOneWithItsErrorType() {
		this.client.post()
			.uri("/api/tools/echo")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"text\":\"hello\"}")
			.exchange()
			.expectStatus()
			.isOk();
		List<String> echo = lines(scrape(), "mcp_method_name=\"tools/call\"", "gen_ai_tool_name=\"echo\"",
				"network_transport=\"pipe\"", "server=\"demo\"");
		assertThat(echo).as("bucket series of the echo call").hasSizeGreaterThan(1);
		assertThat(echo).allSatisfy((line) -> assertThat(line).contains("error_type=\"\""));
		assertThat(echo).anySatisfy((line) -> assertThat(line).contains("le=\"+Inf\"").endsWith(" 1"));

		this.client.post()
			.uri("/api/tools/fail")
			.contentType(MediaType.APPLICATION_JSON)
			.body("{}")
			.exchange()
			.expectStatus()
			.is5xxServerError();
		List<String> failed = lines(scrape(), "mcp_method_name=\"tools/call\"", "gen_ai_tool_name=\"fail\"",
				"network_transport=\"pipe\"", "server=\"demo\"", "error_type=\"tool_error\"");
		assertThat(failed).anySatisfy((line) -> assertThat(line).contains("le=\"+Inf\"").endsWith(" 1"));
	}

	private static List<String> lines(String scrape, String... labels) {
		return Arrays.stream(scrape.split("\n"))
			.filter((line) -> line.startsWith(BUCKET))
			.filter((line) -> Arrays.stream(labels).allMatch(line::contains))
			.toList();
	}

	private String scrape() {
		return this.client.get()
			.uri("/actuator/prometheus")
			.accept(MediaType.TEXT_PLAIN)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
	}

}

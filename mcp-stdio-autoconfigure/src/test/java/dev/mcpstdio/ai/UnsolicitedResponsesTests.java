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

package dev.mcpstdio.ai;

import java.time.Duration;
import java.util.Map;

import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static dev.mcpstdio.ai.AiTestSupport.count;
import static dev.mcpstdio.ai.AiTestSupport.properties;
import static dev.mcpstdio.ai.AiTestSupport.syncClients;
import static dev.mcpstdio.ai.AiTestSupport.text;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A response whose id was never sent, or was already answered, is dropped by the
 * transport with a warning at a bounded rate, instead of one warning of Spring AI's
 * client per response.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(OutputCaptureExtension.class)
@ExtendWith(NoProcessLeft.class)
class UnsolicitedResponsesTests {

	/** Spring AI's client's warning for each response it did not ask for. */
	private static final String CLIENT_WARNING = "Unexpected response for unknown id";

	private static final String DROPPED = "Dropped a response of MCP server 'talkative'";

	private final Fixtures fixtures;

	UnsolicitedResponsesTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void tenThousandResponsesToIdsNeverSentGiveABoundedNumberOfWarnings(CapturedOutput output) {
		AiTestSupport.runner()
			.withPropertyValues(properties(AiTestSupport.testServer("talkative", this.fixtures.id())))
			.run((context) -> {
				McpSyncClient client = syncClients(context).get(0);
				client.callTool(CallToolRequest.builder("unsolicited").arguments(Map.of("count", 10_000)).build());
				// the session goes on: answered in order after the 10 000
				assertThat(text(client
					.callTool(CallToolRequest.builder("echo").arguments(Map.of("text", "still fine")).build())))
					.isEqualTo("still fine");
			});
		int warnings = count(output.getOut(), DROPPED);
		System.out.println("WARN lines for 10000 responses to ids never sent: " + warnings);
		assertThat(warnings).isBetween(1, 20);
		assertThat(count(output.getOut(), CLIENT_WARNING)).isZero();
		assertThat(output.getOut())
			.contains(DROPPED + " to id never-sent-0, which was never sent or already " + "answered");
	}

	@Test
	void aSecondResponseToTheSameIdIsDropped(CapturedOutput output) {
		AiTestSupport.runner()
			.withPropertyValues(properties(AiTestSupport.testServer("talkative", this.fixtures.id())))
			.run((context) -> {
				McpSyncClient client = syncClients(context).get(0);
				client.callTool(CallToolRequest.builder("twice").build());
				assertThat(text(
						client.callTool(CallToolRequest.builder("echo").arguments(Map.of("text", "next")).build())))
					.isEqualTo("next");
				Await.within(Duration.ofSeconds(5)).until("the warning", () -> output.getOut().contains(DROPPED));
			});
		assertThat(count(output.getOut(), DROPPED)).isOne();
		assertThat(count(output.getOut(), CLIENT_WARNING)).isZero();
	}

}

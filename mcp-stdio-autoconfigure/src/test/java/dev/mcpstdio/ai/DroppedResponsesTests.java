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

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import dev.mcpstdio.core.secrets.SecretValues;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static dev.mcpstdio.ai.AiTestSupport.count;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DroppedResponses}, with a clock of the test's own.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(OutputCaptureExtension.class)
class DroppedResponsesTests {

	private final AtomicLong now = new AtomicLong(1_000_000_000L);

	private final DroppedResponses dropped = new DroppedResponses("rates",
			SecretValues.of(List.of("upstream-7d3f9a21c4")), this.now::get);

	@Test
	void dropsAreWarnedAboutAtABoundedRateAndCounted(CapturedOutput output) {
		for (int i = 0; i < 10_000; i++) {
			this.dropped.dropped("never-" + i);
		}
		assertThat(count(output.getOut(), "Dropped a response of MCP server 'rates'")).isEqualTo(10);
		this.now.addAndGet(DroppedResponses.WARNING_INTERVAL_NANOS);
		this.dropped.dropped("upstream-7d3f9a21c4");
		assertThat(count(output.getOut(), "Dropped a response of MCP server 'rates'")).isEqualTo(11);
		assertThat(output.getOut())
			.contains("to id ******, which was never sent or already answered (9990 more such "
					+ "responses were dropped without a log line)")
			.doesNotContain("upstream-7d3f9a21c4");
	}

}

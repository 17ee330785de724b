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

import dev.mcpstdio.ai.McpStdioClientTransport.ServerAnswers;
import dev.mcpstdio.core.server.io.JsonRpcLine;
import dev.mcpstdio.core.secrets.SecretValues;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static dev.mcpstdio.ai.AiTestSupport.count;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ServerAnswers}, with a clock of the test's own.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(OutputCaptureExtension.class)
class ServerAnswersTests {

	private final AtomicLong now = new AtomicLong(1_000_000_000L);

	private final ServerAnswers answers = new ServerAnswers("rates", SecretValues.of(List.of("upstream-7d3f9a21c4")),
			this.now::get);

	@Test
	void aResponseIsTakenOnceForARequestSent() {
		this.answers.sent("a-1", "tools/call");
		this.answers.sent(7, "tools/list");
		assertThat(this.answers.accept("a-1")).isEqualTo("tools/call");
		assertThat(this.answers.accept("a-1")).isNull();
		// the same id, whether the server wrote it as a number or as text
		assertThat(this.answers.accept("7")).isEqualTo("tools/list");
		// none is left waiting
		assertThat(this.answers.answered("a-1")).isNull();
		assertThat(this.answers.answered(7)).isNull();
	}

	@Test
	void dropsAreWarnedAboutAtABoundedRateAndCounted(CapturedOutput output) {
		for (int i = 0; i < 10_000; i++) {
			assertThat(this.answers.accept("never-" + i)).isNull();
		}
		assertThat(count(output.getOut(), "Dropped a response of MCP server 'rates'")).isEqualTo(10);
		this.now.addAndGet(ServerAnswers.WARNING_INTERVAL_NANOS);
		this.answers.accept("upstream-7d3f9a21c4");
		assertThat(count(output.getOut(), "Dropped a response of MCP server 'rates'")).isEqualTo(11);
		assertThat(output.getOut())
			.contains("to id ******, which was never sent or already answered (9990 more such "
					+ "responses were dropped without a log line)")
			.doesNotContain("upstream-7d3f9a21c4");
	}

	@Test
	void rememberedRequestsAreBounded() {
		for (int i = 0; i <= ServerAnswers.CAPACITY; i++) {
			this.answers.sent("r-" + i, "tools/call");
		}
		// the oldest is forgotten, the CAPACITY others are all remembered
		assertThat(this.answers.answered("r-0")).isNull();
		for (int i = 1; i <= ServerAnswers.CAPACITY; i++) {
			assertThat(this.answers.answered("r-" + i)).isEqualTo("tools/call");
		}
	}

	@Test
	void aToolsAnswerIsReadAsWrittenOnlyWhereTheSanitizingWouldChangeNothing() {
		this.answers.sent("c-1", "tools/call");
		this.answers.sent("l-1", "tools/list");
		assertThat(passes(this.answers, "c-1", "{\"content\":[{\"type\":\"text\",\"text\":\"plain\"}],\"n\":42}"))
			.isTrue();
		// only an answer to a tools/call still waiting
		assertThat(passes(this.answers, "l-1", "{\"tools\":[]}")).isFalse();
		assertThat(passes(this.answers, "never-sent", "{}")).isFalse();
		// an escape, a hidden character, a secret value, a number Java may write
		// otherwise
		assertThat(passes(this.answers, "c-1", "{\"text\":\"\\u0041\"}")).isFalse();
		assertThat(passes(this.answers, "c-1", "{\"text\":\"a\u202Eb\"}")).isFalse();
		assertThat(passes(this.answers, "c-1", "{\"text\":\"upstream-7d3f9a21c4\"}")).isFalse();
		assertThat(passes(this.answers, "c-1", "{\"n\":1.5}")).isFalse();
		assertThat(passes(this.answers, "c-1", "{\"n\":2e3}")).isFalse();
		// where no value is secret, a number's text hides none
		ServerAnswers noSecrets = new ServerAnswers("plain", SecretValues.NONE, this.now::get);
		noSecrets.sent("c-2", "tools/call");
		assertThat(passes(noSecrets, "c-2", "{\"n\":1.5}")).isTrue();
	}

	private static boolean passes(ServerAnswers answers, String id, String result) {
		return answers
			.passesAsWritten(JsonRpcLine.of("{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"result\":" + result + "}"));
	}

}

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

import dev.mcpstdio.core.secrets.SecretValues;
import dev.mcpstdio.core.server.io.JsonRpcLine;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ServerAnswers}.
 *
 * @author mcp-stdio authors
 */
class ServerAnswersTests {

	private final ServerAnswers answers = new ServerAnswers(SecretValues.of(List.of("upstream-7d3f9a21c4")));

	@Test
	void aToolsAnswerIsReadAsWrittenOnlyWhereTheSanitizingWouldChangeNothing() {
		assertThat(
				passes(this.answers, "tools/call", "{\"content\":[{\"type\":\"text\",\"text\":\"plain\"}],\"n\":42}"))
			.isTrue();
		// only an answer to a tools/call of the client's
		assertThat(passes(this.answers, "tools/list", "{\"tools\":[]}")).isFalse();
		assertThat(passes(this.answers, null, "{}")).isFalse();
		// an escape, a hidden character, a secret value, a number Java may write
		// otherwise
		assertThat(passes(this.answers, "tools/call", "{\"text\":\"\\u0041\"}")).isFalse();
		assertThat(passes(this.answers, "tools/call", "{\"text\":\"a\u202Eb\"}")).isFalse();
		assertThat(passes(this.answers, "tools/call", "{\"text\":\"upstream-7d3f9a21c4\"}")).isFalse();
		assertThat(passes(this.answers, "tools/call", "{\"n\":1.5}")).isFalse();
		assertThat(passes(this.answers, "tools/call", "{\"n\":2e3}")).isFalse();
		// where no value is secret, a number's text hides none
		assertThat(passes(new ServerAnswers(SecretValues.NONE), "tools/call", "{\"n\":1.5}")).isTrue();
	}

	private static boolean passes(ServerAnswers answers, String method, String result) {
		return answers.passesAsWritten(JsonRpcLine.of("{\"jsonrpc\":\"2.0\",\"id\":\"c-1\",\"result\":" + result + "}"),
				method);
	}

}

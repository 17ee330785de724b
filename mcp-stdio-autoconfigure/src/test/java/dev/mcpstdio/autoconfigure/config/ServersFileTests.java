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

package dev.mcpstdio.autoconfigure.config;

import java.util.Map;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for the placeholders of {@link ServersFile}.
 *
 * @author mcp-stdio authors
 */
class ServersFileTests {

	private final Function<String, @Nullable String> variables = Map.of("TOKEN", "t0k", "EMPTY", "", "my.level",
			"debug")::get;

	@Test
	void resolvesVariables() {
		assertThat(resolve("${TOKEN}")).isEqualTo("t0k");
		assertThat(resolve("Bearer ${TOKEN} at ${my.level}")).isEqualTo("Bearer t0k at debug");
		assertThat(resolve("no placeholder")).isEqualTo("no placeholder");
		assertThat(resolve("$TOKEN and $ and {TOKEN}")).isEqualTo("$TOKEN and $ and {TOKEN}");
	}

	@Test
	void defaultStandsInForUnsetAndEmpty() {
		assertThat(resolve("${UNSET:-fallback}")).isEqualTo("fallback");
		assertThat(resolve("${EMPTY:-fallback}")).isEqualTo("fallback");
		assertThat(resolve("${TOKEN:-fallback}")).isEqualTo("t0k");
		assertThat(resolve("${UNSET:-}")).isEmpty();
		assertThat(resolve("${UNSET:-a:b c/d $x}")).isEqualTo("a:b c/d $x");
		// set but empty without a default: empty, as in a shell
		assertThat(resolve("${EMPTY}")).isEmpty();
	}

	@Test
	void escapedIsLiteral() {
		assertThat(resolve("\\${TOKEN}")).isEqualTo("${TOKEN}");
		assertThat(resolve("\\${UNSET} ${TOKEN}")).isEqualTo("${UNSET} t0k");
	}

	@Test
	void replacementIsNotReadAgain() {
		assertThat(ServersFile.resolve("${A}", Map.of("A", "${B}", "B", "no")::get)).isEqualTo("${B}");
		assertThat(ServersFile.resolve("${A}", Map.of("A", "$1\\")::get)).isEqualTo("$1\\");
	}

	@Test
	void unsetVariableWithoutDefaultNamesTheVariable() {
		assertThatExceptionOfType(ServersFile.UnresolvableException.class)
			.isThrownBy(() -> resolve("x ${UNSET_ONE} ${TOKEN}"))
			.satisfies((ex) -> assertThat(ex.variable).isEqualTo("UNSET_ONE"))
			.withMessage("the variable UNSET_ONE is not set");
	}

	@Test
	void malformedPlaceholders() {
		for (String value : new String[] { "${env:HOME}", "${1}", "${}", "${TOKEN", "${TOKEN:default}", "a ${ b" }) {
			assertThatExceptionOfType(ServersFile.UnresolvableException.class).as(value)
				.isThrownBy(() -> resolve(value))
				.satisfies((ex) -> assertThat(ex.variable).isNull());
		}
	}

	private String resolve(String value) {
		return ServersFile.resolve(value, this.variables);
	}

}

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

package dev.mcpstdio.core.server;

import java.util.List;
import java.util.Map;

import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.secrets.SecretSanitizer;
import dev.mcpstdio.core.secrets.SecretValues;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link SecretValues} and the sanitizer's overloads that take them.
 *
 * @author mcp-stdio authors
 */
class SecretValuesTests {

	@Test
	void theValuesOfSecretLookingVariablesAreRegistered() {
		SecretValues secrets = SecretValues.ofSecretNamed(Map.of("UPSTREAM_API_KEY", "upstream-7d3f9a21c4",
				"GITHUB_TOKEN", "plain-token-value", "LOG_LEVEL", "debug", "API_KEY_FILE", "/run/secrets/key"));
		assertThat(secrets).hasToString("SecretValues[2 values]");
		assertThat(secrets.mask("key upstream-7d3f9a21c4 and plain-token-value, level debug, file /run/secrets/key"))
			.isEqualTo("key ****** and ******, level debug, file /run/secrets/key");
	}

	@Test
	void shortValuesAndSwitchWordsAreNotRegistered() {
		SecretValues secrets = SecretValues.of(List.of("abc", "true", "OFF", " no ", "abcd"));
		assertThat(secrets).hasToString("SecretValues[1 values]");
		assertThat(secrets.mask("abc true OFF abcd")).isEqualTo("abc true OFF ******");
	}

	@Test
	void theLongestValueIsMaskedFirst() {
		SecretValues secrets = SecretValues.of(List.of("secret", "Bearer secret-long"));
		assertThat(secrets.mask("Authorization Bearer secret-long, then secret"))
			.isEqualTo("Authorization ******, then ******");
	}

	@Test
	void neverShowsAValue() {
		SecretValues secrets = SecretValues.of(List.of("upstream-7d3f9a21c4"));
		assertThat(secrets).hasToString("SecretValues[1 values]");
		StdioServerSpec spec = SpecDefaults.of("files", "srv", "--key-value", "upstream-7d3f9a21c4")
			.withEnv(Map.of("UPSTREAM_API_KEY", "upstream-7d3f9a21c4"));
		assertThat(spec.toString()).doesNotContain("upstream-7d3f9a21c4").contains("UPSTREAM_API_KEY");
		assertThat(spec.commandLine()).isEqualTo("srv --key-value ******");
	}

	@Test
	void theSanitizerMasksTheValuesBeforeTheShapes() {
		SecretValues secrets = SecretValues.of(List.of("upstream-7d3f9a21c4"));
		assertThat(SecretSanitizer.text("upstream rejected upstream-7d3f9a21c4; token=abc123", secrets))
			.isEqualTo("upstream rejected ******; token=******");
		assertThat(SecretSanitizer.lines(List.of("a upstream-7d3f9a21c4", "b"), secrets)).containsExactly("a ******",
				"b");
		// masked whole before the cut: a value cut in two would not be recognized
		String quoted = SecretSanitizer.quote("x".repeat(190) + " upstream-7d3f9a21c4 and more", 200, secrets);
		assertThat(quoted).doesNotContain("upstream").endsWith("...");
	}

	@Test
	void aSpecRegistersItsSecretLookingVariablesWhoeverBuiltIt() {
		StdioServerSpec spec = SpecDefaults.builder("files", "srv").env(Map.of("DB_PASSWORD", "hunter2-long")).build();
		assertThat(spec.sanitize("connecting with hunter2-long")).isEqualTo("connecting with ******");
		assertThat(spec.withShutdown(SpecDefaults.shutdown()).secrets()).isEqualTo(spec.secrets());
		assertThat(spec.origin()).isEqualTo(StdioServerSpec.Origin.of("files"));
	}

}

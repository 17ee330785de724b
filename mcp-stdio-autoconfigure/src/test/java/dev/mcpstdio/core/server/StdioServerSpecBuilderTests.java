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

import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link StdioServerSpecBuilder}: the core has no defaults, so a spec without a
 * value the configuration gives fails, naming it.
 *
 * @author mcp-stdio authors
 */
class StdioServerSpecBuilderTests {

	@Test
	void aSpecGivenNoSettingsFailsNamingEachOne() {
		assertThatIllegalStateException().isThrownBy(() -> StdioServerSpec.builder("files", "srv").build())
			.withMessageStartingWith("The spec of MCP server 'files' has no inheritEnv, maxMessageSize, "
					+ "stderrTailLines, sendTimeout, startupTimeout, shutdown, container, sandbox: the core has no "
					+ "defaults");
	}

	@Test
	void aSpecMissingOneSettingFailsNamingOnlyThatOne() {
		StdioServerSpec defaults = SpecDefaults.of("files", "srv");
		StdioServerSpecBuilder builder = StdioServerSpec.builder("files", "srv")
			.inheritEnv(defaults.inheritEnv())
			.maxMessageSize(defaults.maxMessageSize())
			.stderrTailLines(defaults.stderrTailLines())
			.startupTimeout(defaults.startupTimeout())
			.shutdown(defaults.shutdown())
			.container(defaults.container())
			.sandbox(defaults.sandbox());
		assertThatIllegalStateException().isThrownBy(builder::build)
			.withMessageStartingWith("The spec of MCP server 'files' has no sendTimeout: ");
		assertThat(builder.sendTimeout(defaults.sendTimeout()).build()).isEqualTo(defaults);
	}

}

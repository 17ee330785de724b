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

package dev.mcpstdio.autoconfigure;

import dev.mcpstdio.test.Fixtures;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The assertion of the configuration tests: start-up failed with a failure analysis that
 * names server, property, problem and fix, and no process was started.
 *
 * @author mcp-stdio authors
 */
final class ConfigurationFailures {

	private ConfigurationFailures() {
	}

	static FailureAnalysis analyze(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		FailureAnalysis analysis = new McpStdioConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
		assertThat(analysis).as("failure analysis of %s", context.getStartupFailure()).isNotNull();
		return analysis;
	}

	static void assertFailure(AssertableApplicationContext context, Fixtures fixtures, String server, String property,
			String problem, String action) {
		FailureAnalysis analysis = analyze(context);
		assertThat(analysis.getDescription()).contains("no server was started")
			.contains("Server: " + server)
			.contains("Property: " + property)
			.contains(problem);
		assertThat(analysis.getAction()).contains(property + ": ").contains(action);
		assertThat(fixtures.alive()).isEmpty();
	}

}

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

import java.util.LinkedHashSet;
import java.util.Set;

import dev.mcpstdio.autoconfigure.McpStdioConfigurationException.Problem;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns {@link McpStdioConfigurationException} into a start-up report that names each
 * server and property at fault and says how to fix it.
 *
 * @author mcp-stdio authors
 */
class McpStdioConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<McpStdioConfigurationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, McpStdioConfigurationException cause) {
		StringBuilder description = new StringBuilder(
				"The MCP server configuration is invalid; no server was started.\n");
		// one line per thing to do: a variable used in three values is set once
		Set<String> actions = new LinkedHashSet<>();
		for (Problem problem : cause.problems()) {
			// one line each, whatever a server's name holds
			String property = McpStdioConfigurationException.printable(problem.property());
			description.append("\n    Server: ").append(McpStdioConfigurationException.printable(problem.server()));
			description.append("\n    Property: ").append(property);
			description.append("\n    Problem: ")
				.append(McpStdioConfigurationException.printable(problem.problem()))
				.append('\n');
			actions.add("\n    - " + property + ": " + McpStdioConfigurationException.printable(problem.action()));
		}
		return new FailureAnalysis(description.toString(), "Fix the configuration:\n" + String.join("", actions),
				cause);
	}

}

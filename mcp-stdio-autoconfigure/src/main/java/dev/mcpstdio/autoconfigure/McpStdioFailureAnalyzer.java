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

import dev.mcpstdio.McpServerStartupException;
import dev.mcpstdio.McpStdioConfigurationException;
import dev.mcpstdio.McpStdioConfigurationException.Problem;
import dev.mcpstdio.McpStdioException;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;

import static dev.mcpstdio.McpStdioConfigurationException.printable;

/**
 * Start-up reports for an invalid configuration and for a required server that failed.
 *
 * @author mcp-stdio authors
 */
class McpStdioFailureAnalyzer implements FailureAnalyzer {

	@Override
	public @Nullable FailureAnalysis analyze(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof McpStdioConfigurationException configuration) {
				return analyze(configuration);
			}
			if (cause instanceof McpServerStartupException startup) {
				return analyze(startup);
			}
		}
		return null;
	}

	/**
	 * Name each server and property at fault and say how to fix it, on one line each
	 * whatever a server's name holds.
	 */
	private FailureAnalysis analyze(McpStdioConfigurationException cause) {
		StringBuilder description = new StringBuilder(
				"The MCP server configuration is invalid; no server was started.\n");
		// one line per thing to do: a variable used in three values is set once
		Set<String> actions = new LinkedHashSet<>();
		for (Problem problem : cause.problems()) {
			String property = printable(problem.property());
			description.append("\n    Server: ").append(printable(problem.server()));
			description.append("\n    Property: ").append(property);
			description.append("\n    Problem: ").append(printable(problem.problem())).append('\n');
			actions.add("\n    - " + property + ": " + printable(problem.action()));
		}
		return new FailureAnalysis(description.toString(), "Fix the configuration:\n" + String.join("", actions),
				cause);
	}

	/**
	 * Name the required server that could not start, why (its exit code, stderr and any
	 * hint) and what to do, with or without Spring AI.
	 */
	private FailureAnalysis analyze(McpServerStartupException cause) {
		String name = cause.serverName();
		String description = cause.getMessage() + "\n\nThe server is required (mcp.stdio.servers." + name
				+ ".required=true), so the application does not start; the other servers were stopped.";
		String action = "Make " + McpStdioException.describe(name)
				+ " start: the stderr above usually says why it could not. Or set " + "mcp.stdio.servers." + name
				+ ".required=false to start the application without it (it is then "
				+ "shown FAILED by the mcpservers endpoint and health).";
		return new FailureAnalysis(description, action, cause);
	}

}

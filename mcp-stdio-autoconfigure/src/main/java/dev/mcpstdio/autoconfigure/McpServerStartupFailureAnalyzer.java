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

import dev.mcpstdio.lifecycle.McpServerStartupException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns {@link McpServerStartupException} into a start-up report naming the required
 * server that could not start, why (its exit code, stderr and any hint) and what to do,
 * with or without Spring AI.
 *
 * @author mcp-stdio authors
 */
class McpServerStartupFailureAnalyzer extends AbstractFailureAnalyzer<McpServerStartupException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, McpServerStartupException cause) {
		String name = cause.serverName();
		String description = cause.getMessage() + "\n\nThe server is required (mcp.stdio.servers." + name
				+ ".required=true), so the application does not start; the other servers were stopped.";
		String action = "Make MCP server '" + name + "' start: the stderr above usually says why it could not. Or set "
				+ "mcp.stdio.servers." + name + ".required=false to start the application without it (it is then "
				+ "shown FAILED by the mcpservers endpoint and health).";
		return new FailureAnalysis(description, action, cause);
	}

}

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

import java.util.List;
import java.util.stream.Collectors;

/**
 * Thrown before any server starts when the {@code mcp.stdio} configuration has errors;
 * each error names the server and the property, and says how to fix it.
 *
 * @author mcp-stdio authors
 */
public class McpStdioConfigurationException extends RuntimeException {

	private final List<Problem> problems;

	public McpStdioConfigurationException(List<Problem> problems) {
		super("Invalid MCP server configuration: "
				+ problems.stream().map(Problem::describe).collect(Collectors.joining("; ")));
		this.problems = List.copyOf(problems);
	}

	public List<Problem> problems() {
		return this.problems;
	}

	/**
	 * One configuration error.
	 *
	 * @param server the server's name, or {@code null} when the error is not about one
	 * @param property the full property name
	 * @param problem what is wrong
	 * @param action how to fix it
	 */
	public record Problem(String server, String property, String problem, String action) {

		String describe() {
			return "server '" + this.server + "', property '" + this.property + "': " + this.problem;
		}

	}

}

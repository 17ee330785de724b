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

package dev.mcpstdio;

import java.util.List;

/**
 * Thrown when an MCP server's process ended before or while it was used.
 *
 * @author mcp-stdio authors
 */
public class McpServerExitedException extends McpStdioException {

	// Carries the exit code and the last lines the server wrote to stderr, which usually
	// say what went wrong.

	private final int exitCode;

	private final List<String> stderrTail;

	public McpServerExitedException(String serverName, int exitCode, List<String> stderrTail, String message) {
		super(serverName, message);
		this.exitCode = exitCode;
		this.stderrTail = List.copyOf(stderrTail);
	}

	/**
	 * Return the exit code of the process, {@code 128 + N} when killed by signal N.
	 * @return the exit code
	 */
	public int exitCode() {
		return this.exitCode;
	}

	/**
	 * Return the last lines the process wrote to stderr, oldest first.
	 * @return the stderr tail, possibly empty
	 */
	public List<String> stderrTail() {
		return this.stderrTail;
	}

}

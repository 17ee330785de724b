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

import org.jspecify.annotations.Nullable;

/**
 * Thrown from start-up when a server marked required could not start.
 *
 * @author mcp-stdio authors
 */
public class McpServerStartupException extends McpStdioException {

	public McpServerStartupException(String serverName, String message, @Nullable Throwable cause) {
		super(serverName, message, cause);
	}

	/**
	 * Create the exception for a required server that could not start, with or without
	 * Spring AI.
	 * @param serverName the server
	 * @param reason why it could not start: the exit with its stderr, a timeout, ...
	 * @param cause the failure
	 * @return the exception
	 */
	public static McpServerStartupException required(String serverName, @Nullable String reason,
			@Nullable Throwable cause) {
		return new McpServerStartupException(serverName,
				describe(serverName) + " is required but could not start: " + reason, cause);
	}

}

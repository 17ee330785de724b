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
 * Base class of every unchecked exception that mcp-stdio throws: for one MCP server, or
 * for the configuration as a whole.
 *
 * @author mcp-stdio authors
 */
public class McpStdioException extends RuntimeException {

	private final @Nullable String serverName;

	public McpStdioException(String serverName, String message) {
		this(serverName, message, null);
	}

	public McpStdioException(String serverName, String message, @Nullable Throwable cause) {
		super(message, cause);
		this.serverName = serverName;
	}

	/**
	 * Create an exception that is about no single server, such as a configuration with
	 * errors.
	 * @param message the message
	 * @param cause the cause, if any
	 */
	protected McpStdioException(String message, @Nullable Throwable cause) {
		super(message, cause);
		this.serverName = null;
	}

	/**
	 * Return how every message, log line or exception, names a server:
	 * {@code MCP server 'name'}.
	 * @param serverName the server's name
	 * @return the server as messages name it
	 */
	public static String describe(String serverName) {
		return "MCP server '" + serverName + "'";
	}

	/**
	 * Return the name of the MCP server this exception is about.
	 * @return the server name, or {@code null} when it is about no single server (a
	 * {@link McpStdioConfigurationException})
	 */
	public @Nullable String serverName() {
		return this.serverName;
	}

}

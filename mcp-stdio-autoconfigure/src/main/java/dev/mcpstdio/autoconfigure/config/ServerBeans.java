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

package dev.mcpstdio.autoconfigure.config;

import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition;
import dev.mcpstdio.lifecycle.ServerUsers;
import org.jspecify.annotations.Nullable;

/**
 * The bean of each configured server: its name and the server it holds, made alike at
 * start-up and by a reload.
 *
 * @author mcp-stdio authors
 */
public final class ServerBeans {

	/** The decorator that hands the calling user to the application's executors. */
	public static final String USER_TASK_DECORATOR = "mcpStdioUserTaskDecorator";

	private ServerBeans() {
	}

	/**
	 * Return the name of a server's bean.
	 * @param serverName the server's name
	 * @return its bean's name
	 */
	public static String beanName(String serverName) {
		return "mcpStdioServer." + serverName;
	}

	/**
	 * Create a server: a per-user one with the bean that tells its users. The host is
	 * recorded as a dependency of the server's bean where it is initialized, so that the
	 * host is closed only after the server was destroyed.
	 * @param definition the server
	 * @param host its host
	 * @param users who calls, where the application can tell
	 * @return the server
	 */
	public static McpStdioServer server(McpStdioServerDefinition definition, ServerHost host,
			@Nullable ServerUsers users) {
		return new McpStdioServer(definition, host, (definition.demand().perUser() != null) ? users : null);
	}

}

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

import org.jspecify.annotations.Nullable;

import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * What mcp-stdio knows of Spring AI's own stdio transport: the names of its properties
 * and bean, and whether its servers are adopted. Names only, so that nothing here needs
 * Spring AI on the class path.
 *
 * @author mcp-stdio authors
 */
final class SpringAiStdio {

	/** Spring AI's stdio connections, by name: command, args, env. */
	static final String CONNECTIONS = "spring.ai.mcp.client.stdio.connections";

	/** Spring AI's servers file, a resource in the mcpServers format. */
	static final String SERVERS_CONFIGURATION = "spring.ai.mcp.client.stdio.servers-configuration";

	/** The auto-configuration that builds Spring AI's stdio transports. */
	static final String AUTO_CONFIGURATION = "org.springframework.ai.mcp.client.common.autoconfigure.StdioTransportAutoConfiguration";

	/** The method of {@link #AUTO_CONFIGURATION} whose bean holds the transports. */
	static final String TRANSPORTS_METHOD = "stdioTransports";

	private static final String[] REQUIRED_CLASSES = { AUTO_CONFIGURATION,
			"org.springframework.ai.mcp.client.common.autoconfigure.NamedClientMcpTransport",
			"io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper" };

	private SpringAiStdio() {
	}

	/**
	 * Return whether Spring AI's stdio transport would start processes here: its classes
	 * are present and its client is enabled, evaluated as its own condition does.
	 * @param environment the environment
	 * @param classLoader the application's class loader
	 * @return whether Spring AI's stdio transport is active
	 */
	static boolean isActive(Environment environment, @Nullable ClassLoader classLoader) {
		for (String name : REQUIRED_CLASSES) {
			if (!ClassUtils.isPresent(name, classLoader)) {
				return false;
			}
		}
		// @ConditionalOnProperty(havingValue = "true", matchIfMissing = true)
		return "true".equalsIgnoreCase(environment.getProperty("spring.ai.mcp.client.enabled", "true"));
	}

}

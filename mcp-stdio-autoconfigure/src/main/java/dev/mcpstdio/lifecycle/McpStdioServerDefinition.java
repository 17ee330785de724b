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

package dev.mcpstdio.lifecycle;

import java.time.Duration;

import dev.mcpstdio.core.StdioServerSpec;

/**
 * One configured server: what to start and how to manage it.
 *
 * @param spec what to start
 * @param enabled whether it is started at all
 * @param required whether start-up fails when it cannot start
 * @param startupTimeout how long process start and MCP {@code initialize} may take
 * @param restart the restart policy
 * @author mcp-stdio authors
 */
public record McpStdioServerDefinition(StdioServerSpec spec, boolean enabled, boolean required, Duration startupTimeout,
		RestartPolicy restart) {

	/** Default for {@link #startupTimeout()}. */
	public static final Duration DEFAULT_STARTUP_TIMEOUT = Duration.ofSeconds(30);

	public String name() {
		return this.spec.name();
	}

}

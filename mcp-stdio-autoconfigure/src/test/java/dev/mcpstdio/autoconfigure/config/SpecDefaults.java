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

import java.util.List;

import dev.mcpstdio.core.containment.ContainerSettings;
import dev.mcpstdio.core.containment.Containment.SandboxSettings;
import dev.mcpstdio.core.server.ShutdownTimeouts;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.core.server.StdioServerSpecBuilder;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.Demand;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.Limits;
import dev.mcpstdio.lifecycle.RestartPolicy;

/**
 * The settings of a spec or definition that a test builds outside the configuration: the
 * defaults of {@code mcp.stdio}, read from a default {@link McpStdioProperties} and
 * mapped by {@link ServerDefinitions} as a configured server gets them, so that the
 * defaults stay in one place, the properties' fields.
 *
 * @author mcp-stdio authors
 */
public final class SpecDefaults {

	private SpecDefaults() {
	}

	/**
	 * Start a spec with the defaults of a configured server.
	 * @param name the server's name
	 * @param command its executable
	 * @return a builder with every required setting given
	 */
	public static StdioServerSpecBuilder builder(String name, String command) {
		return ServerDefinitions.settings(StdioServerSpec.builder(name, command),
				new McpStdioProperties().getDefaults());
	}

	/**
	 * Create a spec with the defaults of a configured server.
	 * @param name the server's name
	 * @param command its executable
	 * @param args its arguments
	 * @return the spec
	 */
	public static StdioServerSpec of(String name, String command, String... args) {
		return builder(name, command).args(List.of(args)).build();
	}

	/**
	 * Return the default bounds of the shutdown steps.
	 * @return those of {@code mcp.stdio.defaults.shutdown}
	 */
	public static ShutdownTimeouts shutdown() {
		return of("defaults", "true").shutdown();
	}

	/**
	 * Return the default container settings.
	 * @return those of {@code mcp.stdio.defaults.container}
	 */
	public static ContainerSettings container() {
		return of("defaults", "true").container();
	}

	/**
	 * Return the default sandbox settings.
	 * @return those of {@code mcp.stdio.defaults.sandbox}
	 */
	public static SandboxSettings sandbox() {
		return of("defaults", "true").sandbox();
	}

	/**
	 * Return the default restart policy.
	 * @return that of {@code mcp.stdio.defaults.restart}
	 */
	public static RestartPolicy restart() {
		return ServerDefinitions.restart(new McpStdioProperties().getDefaults());
	}

	/**
	 * Return the default demand: when a server that sets nothing starts and stops.
	 * @return that of a server with the defaults of {@code mcp.stdio.defaults}
	 */
	public static Demand demand() {
		return ServerDefinitions.demand(new McpStdioProperties.Server());
	}

	/**
	 * Return the default resource limits.
	 * @return those of a server with the defaults of {@code mcp.stdio.defaults}, checked
	 * every {@code mcp.stdio.resource-check-interval}
	 */
	public static Limits limits() {
		McpStdioProperties properties = new McpStdioProperties();
		return ServerDefinitions.limits(properties.getDefaults(), properties.getResourceCheckInterval());
	}

	/**
	 * Define a server with the defaults of a configured server that sets nothing but its
	 * spec: enabled, not required, eager, the default restart policy and no limits.
	 * @param spec what to start
	 * @return its definition
	 */
	public static McpStdioServerDefinition definition(StdioServerSpec spec) {
		return definition(spec, restart());
	}

	/**
	 * Define a server with the defaults of a configured server but its spec and restart
	 * policy.
	 * @param spec what to start
	 * @param restart its restart policy
	 * @return its definition
	 */
	public static McpStdioServerDefinition definition(StdioServerSpec spec, RestartPolicy restart) {
		McpStdioProperties.Server server = new McpStdioProperties.Server();
		return new McpStdioServerDefinition(spec, server.isEnabled(), server.isRequired(), restart, demand(), limits());
	}

}

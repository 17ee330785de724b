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

/**
 * The settings of a spec that a test builds outside the configuration: the defaults of
 * {@code mcp.stdio.defaults}, read from a default {@link McpStdioProperties} and mapped
 * by {@link ServerDefinitions} as a configured server gets them, so that the defaults
 * stay in one place, the properties' fields.
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

}

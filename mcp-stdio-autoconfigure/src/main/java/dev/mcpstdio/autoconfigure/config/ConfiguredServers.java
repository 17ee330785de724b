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

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import dev.mcpstdio.McpStdioConfigurationException;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition;
import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;

/**
 * The servers configured for mcp-stdio, as one reading of the configuration resolved
 * them: the bound properties, the servers' definitions and the servers files read.
 *
 * @author mcp-stdio authors
 */
public final class ConfiguredServers {

	private final ServerPipeline pipeline;

	private final McpStdioProperties properties;

	private final boolean adopting;

	private final List<McpStdioServerDefinition> definitions;

	private final Set<Path> files;

	ConfiguredServers(ServerPipeline pipeline, McpStdioProperties properties, boolean adopting,
			List<McpStdioServerDefinition> definitions, Set<Path> files) {
		this.pipeline = pipeline;
		this.properties = properties;
		this.adopting = adopting;
		this.definitions = List.copyOf(definitions);
		this.files = Set.copyOf(files);
	}

	/**
	 * Bind, check and resolve the configured servers, those of Spring AI adopted
	 * included.
	 * @param environment the environment
	 * @param resourceLoader loads a servers file
	 * @param classLoader tells whether Spring AI's stdio transport is there
	 * @param log where what was adopted goes (INFO), and what looks wrong (WARN)
	 * @return the servers
	 * @throws McpStdioConfigurationException naming every error
	 */
	public static ConfiguredServers read(Environment environment, ResourceLoader resourceLoader,
			@Nullable ClassLoader classLoader, Log log) {
		return new ServerPipeline(environment, resourceLoader, classLoader).read(log);
	}

	/**
	 * Bind, check and resolve the configuration again, as it is now.
	 * @param log where what was adopted goes (INFO), and what looks wrong (WARN)
	 * @return the servers
	 * @throws McpStdioConfigurationException naming every error
	 */
	public ConfiguredServers readAgain(Log log) {
		return this.pipeline.read(log);
	}

	/**
	 * Return the properties, bound once for this reading.
	 * @return the properties
	 */
	public McpStdioProperties properties() {
		return this.properties;
	}

	/**
	 * Return whether Spring AI's stdio servers are adopted.
	 * @return whether they are
	 */
	public boolean adopting() {
		return this.adopting;
	}

	/**
	 * Return the definitions of the servers, in the order they were configured.
	 * @return the definitions
	 */
	public List<McpStdioServerDefinition> definitions() {
		return this.definitions;
	}

	/**
	 * Return the servers files that were read and are files on the file system, to be
	 * watched.
	 * @return the files
	 */
	public Set<Path> files() {
		return this.files;
	}

	/**
	 * Return how long the start-up sweep waits after SIGTERM: the longest
	 * {@code terminate-timeout} of some servers and of {@code defaults}, so that a
	 * leftover of any of them gets at least its own server's time to end.
	 * @param properties the properties
	 * @param definitions the servers
	 * @return the longest terminate timeout
	 */
	public static Duration longestTerminateTimeout(McpStdioProperties properties,
			List<McpStdioServerDefinition> definitions) {
		Duration longest = ServerDefinitions.shutdown(properties.getDefaults()).terminate();
		for (McpStdioServerDefinition definition : definitions) {
			Duration terminate = definition.spec().shutdown().terminate();
			longest = (terminate.compareTo(longest) > 0) ? terminate : longest;
		}
		return longest;
	}

}

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
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.mcpstdio.McpStdioConfigurationException;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition;
import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;

/**
 * The pipeline that reads the configured servers: bind {@code mcp.stdio} once, check the
 * properties as written, gather the servers of every source, check each, and map each to
 * its definition, every step reporting to one {@link Problems}.
 *
 * @author mcp-stdio authors
 */
final class ServerPipeline {

	private final Environment environment;

	private final ResourceLoader resourceLoader;

	private final @Nullable ClassLoader classLoader;

	ServerPipeline(Environment environment, ResourceLoader resourceLoader, @Nullable ClassLoader classLoader) {
		this.environment = environment;
		this.resourceLoader = resourceLoader;
		this.classLoader = classLoader;
	}

	/**
	 * Read the configured servers, those of Spring AI adopted included.
	 * @param log where what was adopted goes (INFO), and what looks wrong (WARN)
	 * @return the servers
	 * @throws McpStdioConfigurationException naming every error
	 */
	ConfiguredServers read(Log log) {
		Problems problems = new Problems();
		ServersBinder binder = new ServersBinder(this.environment, problems);
		McpStdioProperties properties = binder.bind();
		boolean springAiStdio = SpringAiStdio.isActive(this.environment, this.classLoader);
		boolean adopting = springAiStdio && properties.isAdoptSpringAiStdio();
		Map<String, Set<String>> placeholderSecrets = PropertyNames.check(this.environment, adopting, problems);
		Map<String, Connection> connections = binder.connections();
		Set<Path> files = new LinkedHashSet<>();
		FileServers fileServers = new FileServers(this.environment, this.resourceLoader, problems, binder::newServer,
				files);
		ServerSources sources = new ServerSources(this.environment, binder, fileServers, problems, log);
		ServerChecks checks = new ServerChecks(problems, this.classLoader, binder.defaultsKeys());
		ServerDefinitions definitions = new ServerDefinitions(placeholderSecrets,
				properties.getResourceCheckInterval());
		checks.bounds()
			.duration("(all servers)", McpStdioProperties.PREFIX + ".resource-check-interval",
					properties.getResourceCheckInterval(), ServerBounds.ONE_HOUR);
		List<McpStdioServerDefinition> defined = new ArrayList<>();
		for (Configured configured : sources.gather(properties, adopting, connections).values()) {
			ServerChecks.Checked checked = checks.check(configured);
			if (checked != null) {
				defined.add(definitions.definition(configured, checked));
			}
		}
		sources.report(defined, (springAiStdio && !adopting) ? connections.keySet() : Set.of(), properties);
		problems.throwIfAny();
		return new ConfiguredServers(this, properties, adopting, defined, files);
	}

}

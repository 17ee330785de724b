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
import java.util.Map;
import java.util.Set;

import dev.mcpstdio.autoconfigure.config.McpStdioProperties.Server;
import dev.mcpstdio.autoconfigure.config.McpStdioProperties.ServerSettings;
import dev.mcpstdio.core.containment.ContainerSettings;
import dev.mcpstdio.core.containment.Containment.SandboxSettings;
import dev.mcpstdio.core.secrets.SecretValues;
import dev.mcpstdio.core.server.ShutdownTimeouts;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.core.server.StdioServerSpecBuilder;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.Demand;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.Limits;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.PerUser;
import dev.mcpstdio.lifecycle.RestartPolicy;
import org.jspecify.annotations.Nullable;

import org.springframework.util.unit.DataSize;

/**
 * The one place that maps the checked properties of a server to its spec and definition:
 * every value a server gets is its property's, whose default is on the field.
 *
 * @author mcp-stdio authors
 */
final class ServerDefinitions {

	/** The placeholders of the servers files that are secrets, by server. */
	private final Map<String, Set<String>> placeholderSecrets;

	private final Duration resourceCheckInterval;

	ServerDefinitions(Map<String, Set<String>> placeholderSecrets, Duration resourceCheckInterval) {
		this.placeholderSecrets = placeholderSecrets;
		this.resourceCheckInterval = resourceCheckInterval;
	}

	/**
	 * Build the definition of a server from its values, checked already.
	 * @param configured the server
	 * @param checked its values that the checks resolved
	 * @return its definition
	 */
	McpStdioServerDefinition definition(Configured configured, ServerChecks.Checked checked) {
		Server server = configured.server();
		StdioServerSpec spec = spec(configured, checked.command(), checked.directory());
		return new McpStdioServerDefinition(spec, server.isEnabled(), server.isRequired(), restart(server),
				demand(server), limits(server, this.resourceCheckInterval));
	}

	/**
	 * Return the restart policy of a server.
	 * @param settings the server's settings
	 * @return its {@code restart.*}
	 */
	static RestartPolicy restart(ServerSettings settings) {
		McpStdioProperties.Restart restart = settings.getRestart();
		return new RestartPolicy(restart.getPolicy(), restart.getMaxRestarts(), restart.getWindow(),
				restart.getInitialBackoff(), restart.getMaxBackoff());
	}

	/**
	 * Return when a server is started and stopped for being idle.
	 * @param server the server
	 * @return its {@code start}, {@code idle-timeout} and per-user instances
	 */
	static Demand demand(Server server) {
		PerUser perUser = (server.getInstances() == McpStdioProperties.Instances.SHARED) ? null
				: new PerUser(server.getMaxInstances(), server.getInstanceWait(), server.getUserEnv());
		Duration idleTimeout = (server.getIdleTimeout() != null) ? server.getIdleTimeout()
				: (perUser != null) ? ServerSettings.PER_USER_IDLE_TIMEOUT : null;
		return new Demand(server.getStart(), idleTimeout, perUser);
	}

	/**
	 * Return the resource limits of a server.
	 * @param settings the server's settings
	 * @param checkInterval the value of {@code mcp.stdio.resource-check-interval}
	 * @return its {@code max-memory} and {@code max-processes}
	 */
	static Limits limits(ServerSettings settings, Duration checkInterval) {
		DataSize maxMemory = settings.getMaxMemory();
		return new Limits((maxMemory != null) ? maxMemory.toBytes() : null, settings.getMaxProcesses(), checkInterval);
	}

	/** Build the spec of a server from its values, checked already. */
	private StdioServerSpec spec(Configured configured, String command, @Nullable Path directory) {
		String name = configured.name();
		Server server = configured.server();
		// masked in the server's output besides its secret-looking env entries: the
		// placeholders that are secrets and, when it inherits the environment, the
		// application's secret-looking variables (it may print them)
		SecretValues secrets = SecretValues.of(configured.secrets())
			.and(SecretValues.of(this.placeholderSecrets.getOrDefault(name, Set.of())));
		return settings(StdioServerSpec.builder(name, command), server).args(server.getArgs())
			.env(server.getEnv())
			.workingDirectory(directory)
			.secrets(server.isInheritEnv() ? secrets.and(SecretValues.ofSecretNamed(System.getenv())) : secrets)
			.origin((configured.file() != null) ? StdioServerSpec.Origin.file(name, configured.file())
					: StdioServerSpec.Origin.property(name, configured.commandPrefix() + "env"))
			.build();
	}

	/**
	 * Give a spec the settings of a server that the core requires: the properties'
	 * values, their defaults included.
	 * @param builder the spec's builder
	 * @param settings the server's settings
	 * @return the builder
	 */
	static StdioServerSpecBuilder settings(StdioServerSpecBuilder builder, ServerSettings settings) {
		return builder.inheritEnv(settings.isInheritEnv())
			.maxMessageSize((int) settings.getMaxMessageSize().toBytes())
			.stderrTailLines(settings.getStderrTailLines())
			.sendTimeout(settings.getSendTimeout())
			.startupTimeout(settings.getStartupTimeout())
			.shutdown(shutdown(settings))
			.container(container(settings))
			.sandbox(sandbox(settings));
	}

	/**
	 * Return the bounds of a server's shutdown steps.
	 * @param settings the server's settings
	 * @return its {@code shutdown.*}
	 */
	static ShutdownTimeouts shutdown(ServerSettings settings) {
		McpStdioProperties.Shutdown shutdown = settings.getShutdown();
		return new ShutdownTimeouts(shutdown.getDrainTimeout(), shutdown.getStdinCloseTimeout(),
				shutdown.getTerminateTimeout());
	}

	private static ContainerSettings container(ServerSettings settings) {
		McpStdioProperties.Container container = settings.getContainer();
		return new ContainerSettings(container.isEnabled(), container.getEngineCommand(), container.isInit(),
				container.getEngineTimeout());
	}

	/** The sandbox of a server, its paths checked already when it is enabled. */
	private static SandboxSettings sandbox(ServerSettings settings) {
		McpStdioProperties.Sandbox sandbox = settings.getSandbox();
		return new SandboxSettings(sandbox.isEnabled(), sandbox.getNetwork(), paths(sandbox.getReadWrite()),
				paths(sandbox.getReadOnly()));
	}

	private static List<Path> paths(List<String> values) {
		return values.stream().map(Path::of).toList();
	}

}

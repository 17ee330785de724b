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

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

import dev.mcpstdio.autoconfigure.ConfiguredServers.Configured;
import dev.mcpstdio.autoconfigure.McpStdioProperties.Server;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.core.server.ShutdownTimeouts;
import dev.mcpstdio.core.containment.ContainerSettings;
import dev.mcpstdio.core.containment.Containment.SandboxSettings;
import dev.mcpstdio.core.secrets.SecretValues;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.Demand;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.Limits;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.PerUser;
import dev.mcpstdio.lifecycle.RestartPolicy;
import org.jspecify.annotations.Nullable;

import org.springframework.util.unit.DataSize;

/**
 * The one place that maps the checked properties of a server to its spec and definition.
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
		StdioServerSpec spec = spec(configured, checked.command(), checked.directory(), checked.sandbox());
		McpStdioProperties.Restart restart = server.getRestart();
		RestartPolicy policy = new RestartPolicy(restart.getPolicy(), restart.getMaxRestarts(), restart.getWindow(),
				restart.getInitialBackoff(), restart.getMaxBackoff());
		PerUser perUser = (server.getInstances() == McpStdioProperties.Instances.SHARED) ? null
				: new PerUser(server.getMaxInstances(), server.getInstanceWait(), server.getUserEnv());
		Duration idleTimeout = (server.getIdleTimeout() != null) ? server.getIdleTimeout()
				: (perUser != null) ? ServerChecks.TEN_MINUTES : null;
		DataSize maxMemory = server.getMaxMemory();
		Limits limits = new Limits((maxMemory != null) ? maxMemory.toBytes() : null, server.getMaxProcesses(),
				this.resourceCheckInterval);
		return new McpStdioServerDefinition(spec, server.isEnabled(), server.isRequired(), policy,
				new Demand(server.getStart(), idleTimeout, perUser), limits);
	}

	/** Build the spec of a server from its values, checked already. */
	private StdioServerSpec spec(Configured configured, String command, @Nullable Path directory,
			SandboxSettings sandbox) {
		String name = configured.name();
		Server server = configured.server();
		McpStdioProperties.Shutdown shutdown = server.getShutdown();
		McpStdioProperties.Container container = server.getContainer();
		// masked in the server's output besides its secret-looking env entries: the
		// placeholders that are secrets and, when it inherits the environment, the
		// application's secret-looking variables (it may print them)
		SecretValues secrets = SecretValues.of(configured.secrets())
			.and(SecretValues.of(this.placeholderSecrets.getOrDefault(name, Set.of())));
		return StdioServerSpec.builder(name, command)
			.args(server.getArgs())
			.env(server.getEnv())
			.inheritEnv(server.isInheritEnv())
			.workingDirectory(directory)
			.maxMessageSize((int) server.getMaxMessageSize().toBytes())
			.stderrTailLines(server.getStderrTailLines())
			.sendTimeout(server.getSendTimeout())
			.startupTimeout(server.getStartupTimeout())
			.shutdown(new ShutdownTimeouts(shutdown.getDrainTimeout(), shutdown.getStdinCloseTimeout(),
					shutdown.getTerminateTimeout()))
			.container(new ContainerSettings(container.isEnabled(), container.getEngineCommand(), container.isInit(),
					container.getEngineTimeout()))
			.sandbox(sandbox)
			.secrets(server.isInheritEnv() ? secrets.and(SecretValues.ofSecretNamed(System.getenv())) : secrets)
			.origin((configured.file() != null) ? StdioServerSpec.Origin.file(name, configured.file())
					: StdioServerSpec.Origin.property(name, configured.commandPrefix() + "env"))
			.build();
	}

}

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

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;

import dev.mcpstdio.autoconfigure.ConfiguredServers.ConfiguredServer;
import dev.mcpstdio.autoconfigure.McpStdioProperties.Server;
import dev.mcpstdio.autoconfigure.McpStdioProperties.ServerSettings;
import dev.mcpstdio.core.CommandLocator;
import dev.mcpstdio.core.CommandLocator.CommandNotFoundException;
import dev.mcpstdio.core.ServerOrigin;
import dev.mcpstdio.core.ShutdownTimeouts;
import dev.mcpstdio.core.StdioServerSpec;
import dev.mcpstdio.core.containment.ContainerRun;
import dev.mcpstdio.core.containment.ContainerSettings;
import dev.mcpstdio.core.containment.InvalidContainerCommandException;
import dev.mcpstdio.core.io.SecretValues;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.Demand;
import dev.mcpstdio.lifecycle.RestartPolicy;
import dev.mcpstdio.lifecycle.StartMode;
import org.jspecify.annotations.Nullable;

import org.springframework.util.unit.DataSize;

/**
 * Turns the configured servers into checked server definitions: each value from the
 * server, else from {@code defaults}, else {@link ServerSettings#builtIn() built in}, and
 * checked against its bounds ({@link SettingBounds}), every error collected so that one
 * start-up report lists them all. A server adopted from Spring AI's stdio configuration
 * inherits the application's environment unless {@code inherit-env} is set for it (or
 * under {@code defaults}), as Spring AI's own transport gave it, and each server's spec
 * carries its {@link SecretValues}.
 *
 * @author mcp-stdio authors
 */
final class ServerDefinitions {

	private static final String DEFAULTS = McpStdioProperties.PREFIX + ".defaults.";

	private static final ServerSettings BUILT_IN = ServerSettings.builtIn();

	private final ServerSettings defaults;

	private final Map<String, String> jvmEnvironment;

	private final ProblemReport problems;

	private final Duration resourceCheckInterval;

	private final Map<String, Set<String>> placeholderSecrets;

	private final Consumer<String> notes;

	/**
	 * Create an instance.
	 * @param properties the bound properties
	 * @param jvmEnvironment the application's environment variables
	 * @param placeholderSecrets the values of placeholders that are secrets, by server
	 * (see {@link PlaceholderSecrets})
	 * @param problems where errors go
	 * @param notes where what is worth a line at INFO goes, once per start-up
	 */
	ServerDefinitions(McpStdioProperties properties, Map<String, String> jvmEnvironment,
			Map<String, Set<String>> placeholderSecrets, ProblemReport problems, Consumer<String> notes) {
		this.defaults = properties.getDefaults();
		this.jvmEnvironment = jvmEnvironment;
		this.placeholderSecrets = placeholderSecrets;
		this.problems = problems;
		this.notes = notes;
		this.resourceCheckInterval = resourceCheckInterval(properties.getResourceCheckInterval());
	}

	private Duration resourceCheckInterval(@Nullable Duration interval) {
		if (interval == null) {
			return McpStdioServerDefinition.Limits.DEFAULT_CHECK_INTERVAL;
		}
		String property = McpStdioProperties.PREFIX + ".resource-check-interval";
		if (interval.isNegative() || interval.isZero()) {
			this.problems.add("(all servers)", property, "must be positive, was " + interval,
					"set a duration such as 5s");
			return McpStdioServerDefinition.Limits.DEFAULT_CHECK_INTERVAL;
		}
		if (interval.compareTo(SettingBounds.RESOURCE_CHECK_INTERVAL) > 0) {
			this.problems.add("(all servers)", property,
					"must be at most " + SettingBounds.format(SettingBounds.RESOURCE_CHECK_INTERVAL) + ", was "
							+ SettingBounds.format(interval),
					"set a duration up to " + SettingBounds.format(SettingBounds.RESOURCE_CHECK_INTERVAL));
			return SettingBounds.RESOURCE_CHECK_INTERVAL;
		}
		return interval;
	}

	/**
	 * Resolve and check every configured server.
	 * @param servers the servers
	 * @return the definitions of those without errors, in the given order
	 */
	List<McpStdioServerDefinition> resolve(Collection<ConfiguredServer> servers) {
		List<McpStdioServerDefinition> definitions = new ArrayList<>();
		List<String> inheriting = new ArrayList<>();
		for (ConfiguredServer server : servers) {
			Resolution resolution = new Resolution(server);
			McpStdioServerDefinition definition = resolution.resolve();
			if (definition != null) {
				definitions.add(definition);
				if (server.adopted() && resolution.inheritEnvUnset() && definition.enabled()) {
					inheriting.add(server.name());
				}
			}
		}
		if (!inheriting.isEmpty()) {
			this.notes.accept("MCP servers adopted from spring.ai.mcp.client.stdio get the application's whole "
					+ "environment, as Spring AI's own stdio transport gave it: " + String.join(", ", inheriting)
					+ " (set " + McpStdioProperties.PREFIX + ".servers.<name>.inherit-env=false to give one only the "
					+ "allow-list and its env)");
		}
		return definitions;
	}

	/**
	 * The resolution of one server.
	 */
	private final class Resolution {

		private final String name;

		private final Server server;

		private final ConfiguredServer configured;

		private final String prefix;

		Resolution(ConfiguredServer configured) {
			this.configured = configured;
			this.name = configured.name();
			this.server = configured.server();
			this.prefix = ConfiguredServers.SERVERS + this.name + ".";
		}

		@Nullable McpStdioServerDefinition resolve() {
			int before = ServerDefinitions.this.problems.count();
			if (!SettingBounds.NAME.matcher(this.name).matches()) {
				problem(ConfiguredServers.SERVERS + this.name,
						"the name must be 1 to 64 letters, digits, '.', '_' or '-', begin and end with a letter or "
								+ "digit, and have no '..'" + inFile(),
						"rename the server: its name is also a bean name, a metric tag and a logger category");
			}
			this.server.getEnv().keySet().forEach(this::checkVariableName);
			boolean enabled = pick(ServerSettings::getEnabled);
			boolean required = pick(ServerSettings::getRequired);
			// what Spring AI's transport gave an adopted server, unless set for it
			boolean inheritEnv = (this.configured.adopted() && inheritEnvUnset())
					|| pick(ServerSettings::getInheritEnv);
			Duration startupTimeout = duration(ServerSettings::getStartupTimeout, "startup-timeout",
					SettingBounds.STARTUP_TIMEOUT);
			Duration sendTimeout = duration(ServerSettings::getSendTimeout, "send-timeout", SettingBounds.SEND_TIMEOUT);
			DataSize maxMessageSize = pick(ServerSettings::getMaxMessageSize);
			if (maxMessageSize.toBytes() <= 0 || maxMessageSize.compareTo(SettingBounds.MAX_MESSAGE_SIZE) > 0) {
				problem(source(ServerSettings::getMaxMessageSize, "max-message-size"), "must be between 1B and "
						+ SettingBounds.MAX_MESSAGE_SIZE.toMegabytes() + "MB, was " + maxMessageSize,
						"set a size such as 16MB");
			}
			int stderrTailLines = pick(ServerSettings::getStderrTailLines);
			if (stderrTailLines < 0 || stderrTailLines > SettingBounds.STDERR_TAIL_LINES) {
				problem(source(ServerSettings::getStderrTailLines, "stderr-tail-lines"),
						"must be between 0 and " + SettingBounds.STDERR_TAIL_LINES + ", was " + stderrTailLines,
						"set a small count such as 50");
			}
			ShutdownTimeouts shutdown = new ShutdownTimeouts(
					duration((s) -> s.getShutdown().getDrainTimeout(), "shutdown.drain-timeout",
							SettingBounds.SHUTDOWN_STEP),
					duration((s) -> s.getShutdown().getStdinCloseTimeout(), "shutdown.stdin-close-timeout",
							SettingBounds.SHUTDOWN_STEP),
					duration((s) -> s.getShutdown().getTerminateTimeout(), "shutdown.terminate-timeout",
							SettingBounds.SHUTDOWN_STEP));
			RestartPolicy restart = restart();
			ContainerSettings container = container();
			Demand demand = demand();
			McpStdioServerDefinition.Limits resourceLimits = resourceLimits();
			Path directory = workingDirectory();
			String command = this.server.getCommand();
			if (command == null || command.isBlank()) {
				problem(this.configured.commandPrefix() + "command", "no command is set" + inFile(),
						"set the executable to run, such as npx, uvx or java");
			}
			else if (enabled && !ServerDefinitions.this.problems.concern(this.configured.commandPrefix() + "command")) {
				checkCommand(command, directory);
				checkContainerCommand(command, container, directory);
			}
			if (ServerDefinitions.this.problems.count() > before) {
				return null;
			}
			StdioServerSpec spec = new StdioServerSpec(this.name, command, this.server.getArgs(), this.server.getEnv(),
					inheritEnv, directory, (int) maxMessageSize.toBytes(), stderrTailLines, sendTimeout, shutdown,
					container, secrets(inheritEnv), origin());
			return new McpStdioServerDefinition(spec, enabled, required, startupTimeout, restart, demand,
					resourceLimits);
		}

		/**
		 * Return whether {@code inherit-env} is set neither for the server nor under
		 * {@code defaults}.
		 */
		boolean inheritEnvUnset() {
			return this.server.getInheritEnv() == null && ServerDefinitions.this.defaults.getInheritEnv() == null;
		}

		/**
		 * Return the secret values of the server besides those of its secret-looking
		 * {@code env} entries: the placeholders that are secrets and, when it inherits
		 * the environment, the application's secret-looking variables.
		 */
		private SecretValues secrets(boolean inheritEnv) {
			Set<String> values = new LinkedHashSet<>(this.configured.placeholderValues());
			values.addAll(ServerDefinitions.this.placeholderSecrets.getOrDefault(this.name, Set.of()));
			SecretValues secrets = SecretValues.of(values);
			// it gets the application's secrets too: it may print them
			return inheritEnv ? secrets.and(SecretValues.ofSecretNamed(ServerDefinitions.this.jvmEnvironment))
					: secrets;
		}

		private ServerOrigin origin() {
			String file = this.configured.file();
			return (file != null) ? ServerOrigin.file(this.name, file)
					: ServerOrigin.property(this.name, this.configured.commandPrefix() + "env");
		}

		private RestartPolicy restart() {
			int maxRestarts = pick((s) -> s.getRestart().getMaxRestarts());
			if (maxRestarts < 0 || maxRestarts > SettingBounds.MAX_RESTARTS) {
				problem(source((s) -> s.getRestart().getMaxRestarts(), "restart.max-restarts"),
						"must be between 0 and " + SettingBounds.MAX_RESTARTS + ", was " + maxRestarts,
						"set a small count such as 5");
			}
			return new RestartPolicy(pick((s) -> s.getRestart().getPolicy()), Math.max(0, maxRestarts),
					duration((s) -> s.getRestart().getWindow(), "restart.window", SettingBounds.RESTART_WINDOW),
					duration((s) -> s.getRestart().getInitialBackoff(), "restart.initial-backoff",
							SettingBounds.BACKOFF),
					duration((s) -> s.getRestart().getMaxBackoff(), "restart.max-backoff", SettingBounds.BACKOFF));
		}

		private @Nullable Path workingDirectory() {
			String workingDirectory = pick(ServerSettings::getWorkingDirectory);
			if (workingDirectory == null) {
				return null;
			}
			Path directory = Path.of(workingDirectory);
			if (!Files.isDirectory(directory)) {
				problem(source(ServerSettings::getWorkingDirectory, "working-directory"),
						"the directory " + workingDirectory + " does not exist"
								+ ((this.server.getWorkingDirectory() != null) ? inFile() : ""),
						"create it or point working-directory at an existing directory");
			}
			return directory;
		}

		private Demand demand() {
			StartMode start = pick(ServerSettings::getStart);
			Duration idleTimeout = pick(ServerSettings::getIdleTimeout);
			if (idleTimeout != null) {
				idleTimeout = duration(ServerSettings::getIdleTimeout, "idle-timeout", SettingBounds.IDLE_TIMEOUT);
			}
			return new Demand(start, idleTimeout);
		}

		private McpStdioServerDefinition.Limits resourceLimits() {
			DataSize maxMemory = pick(ServerSettings::getMaxMemory);
			if (maxMemory != null && maxMemory.toBytes() <= 0) {
				problem(source(ServerSettings::getMaxMemory, "max-memory"), "must be positive, was " + maxMemory,
						"set a size such as 512MB, or remove it for no limit");
			}
			Integer maxProcesses = pick(ServerSettings::getMaxProcesses);
			if (maxProcesses != null && maxProcesses < 1) {
				problem(source(ServerSettings::getMaxProcesses, "max-processes"),
						"must be at least 1, was " + maxProcesses, "set a count such as 64, or remove it for no limit");
			}
			return new McpStdioServerDefinition.Limits((maxMemory != null) ? maxMemory.toBytes() : null, maxProcesses,
					ServerDefinitions.this.resourceCheckInterval);
		}

		private void checkCommand(String command, @Nullable Path directory) {
			String path = this.server.getEnv().get("PATH");
			if (path == null) {
				path = ServerDefinitions.this.jvmEnvironment.get("PATH");
			}
			try {
				CommandLocator.locate(command, path, directory);
			}
			catch (CommandNotFoundException ex) {
				problem(this.configured.commandPrefix() + "command", ex.getMessage() + inFile(),
						"install it, use its absolute path, or add its directory to PATH");
			}
		}

		/**
		 * An operating system takes no variable whose name is empty or holds '=' or NUL:
		 * the start would fail.
		 */
		private void checkVariableName(String variable) {
			if (variable.isEmpty() || variable.indexOf('=') >= 0 || variable.indexOf('\0') >= 0) {
				problem(this.configured.commandPrefix() + "env[" + variable + "]",
						"'" + variable + "' cannot name an environment variable: a name is not empty and holds no '=' "
								+ "or NUL" + inFile(),
						"rename the variable");
			}
		}

		private String inFile() {
			String file = this.configured.file();
			return (file != null) ? " (in " + file + ")" : "";
		}

		private ContainerSettings container() {
			return new ContainerSettings(pick((s) -> s.getContainer().getEnabled()),
					this.server.getContainer().getEngineCommand() != null
							? this.server.getContainer().getEngineCommand()
							: ServerDefinitions.this.defaults.getContainer().getEngineCommand(),
					pick((s) -> s.getContainer().getInit()), duration((s) -> s.getContainer().getEngineTimeout(),
							"container.engine-timeout", SettingBounds.ENGINE_TIMEOUT));
		}

		/**
		 * A docker run or podman run that cannot serve MCP over stdio (-t, -d, no -i) is
		 * refused naming the argument; an engine command of its own must exist.
		 */
		private void checkContainerCommand(String command, ContainerSettings container, @Nullable Path directory) {
			if (!container.enabled()) {
				return;
			}
			ContainerRun run;
			try {
				run = ContainerRun.recognise(command, this.server.getArgs());
			}
			catch (InvalidContainerCommandException ex) {
				String argument = (ex.argIndex() >= 0) ? "args[" + ex.argIndex() + "]" : "args";
				problem(this.configured.commandPrefix() + argument, ex.getMessage() + inFile(),
						"change the container's arguments as described, or set " + this.prefix
								+ "container.enabled=false to run the command as given (its container is then "
								+ "ended only through its process tree)");
				return;
			}
			String engineCommand = container.engineCommand();
			if (run != null && engineCommand != null) {
				try {
					CommandLocator.locate(engineCommand, ServerDefinitions.this.jvmEnvironment.get("PATH"), directory);
				}
				catch (CommandNotFoundException ex) {
					problem(source((s) -> s.getContainer().getEngineCommand(), "container.engine-command"),
							ex.getMessage(),
							"install it, use its absolute path, or remove the property to use the server's command");
				}
			}
		}

		private Duration duration(Function<ServerSettings, @Nullable Duration> getter, String key, Duration max) {
			Duration value = pick(getter);
			if (value.isNegative() || value.isZero()) {
				problem(source(getter, key), "must be positive, was " + value, "set a positive duration such as 2s");
				return Duration.ofSeconds(1);
			}
			if (value.compareTo(max) > 0) {
				problem(source(getter, key),
						"must be at most " + SettingBounds.format(max) + ", was " + SettingBounds.format(value),
						"set a duration up to " + SettingBounds.format(max));
				return max;
			}
			return value;
		}

		private <T> T pick(Function<ServerSettings, @Nullable T> getter) {
			T value = getter.apply(this.server);
			if (value == null) {
				value = getter.apply(ServerDefinitions.this.defaults);
			}
			return (value != null) ? value : getter.apply(BUILT_IN);
		}

		/**
		 * Return the full name of the property a value came from: the server's own, else
		 * the one under {@code defaults} that it inherited, so an error points where to
		 * fix it.
		 */
		private String source(Function<ServerSettings, ?> getter, String key) {
			if (getter.apply(this.server) == null && getter.apply(ServerDefinitions.this.defaults) != null) {
				return DEFAULTS + key;
			}
			return this.prefix + key;
		}

		private void problem(String property, String problem, String action) {
			ServerDefinitions.this.problems.add(this.name, property, problem, action);
		}

	}

}

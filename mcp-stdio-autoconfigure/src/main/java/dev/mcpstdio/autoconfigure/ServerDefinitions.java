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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;

import dev.mcpstdio.autoconfigure.McpStdioConfigurationException.Problem;
import dev.mcpstdio.autoconfigure.McpStdioProperties.Server;
import dev.mcpstdio.autoconfigure.McpStdioProperties.ServerSettings;
import dev.mcpstdio.core.CommandLocator;
import dev.mcpstdio.core.CommandLocator.CommandNotFoundException;
import dev.mcpstdio.core.ShutdownTimeouts;
import dev.mcpstdio.core.StdioServerSpec;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.Demand;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.Limits;
import dev.mcpstdio.lifecycle.RestartPolicy;
import dev.mcpstdio.lifecycle.StartMode;
import org.jspecify.annotations.Nullable;

import org.springframework.core.io.Resource;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.unit.DataSize;

/**
 * Turns the bound {@code mcp.stdio} properties (and the servers file) into checked server
 * definitions: each value from the server, else from {@code defaults}, else built in.
 * Every error is collected, so one start-up report lists them all.
 *
 * @author mcp-stdio authors
 */
final class ServerDefinitions {

	private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9._-]+");

	private static final String SERVERS = McpStdioProperties.PREFIX + ".servers.";

	private static final String DEFAULTS = McpStdioProperties.PREFIX + ".defaults.";

	private final McpStdioProperties properties;

	private final ResourceLoader resourceLoader;

	private final Map<String, String> jvmEnvironment;

	private final List<Problem> problems = new ArrayList<>();

	ServerDefinitions(McpStdioProperties properties, ResourceLoader resourceLoader,
			Map<String, String> jvmEnvironment) {
		this.properties = properties;
		this.resourceLoader = resourceLoader;
		this.jvmEnvironment = jvmEnvironment;
	}

	/**
	 * Resolve and check every configured server.
	 * @return the definitions, in configuration order
	 * @throws McpStdioConfigurationException listing every error
	 */
	List<McpStdioServerDefinition> resolve() {
		Map<String, Server> servers = new LinkedHashMap<>(this.properties.getServers());
		Map<String, String> origin = new LinkedHashMap<>();
		servers.keySet().forEach((name) -> origin.put(name, SERVERS + name));
		readServersFile(servers, origin);
		List<McpStdioServerDefinition> definitions = new ArrayList<>();
		Duration checkInterval = resourceCheckInterval();
		for (Map.Entry<String, Server> entry : servers.entrySet()) {
			McpStdioServerDefinition definition = resolve(entry.getKey(), entry.getValue(), origin.get(entry.getKey()),
					checkInterval);
			if (definition != null) {
				definitions.add(definition);
			}
		}
		if (!this.problems.isEmpty()) {
			throw new McpStdioConfigurationException(this.problems);
		}
		return definitions;
	}

	private void readServersFile(Map<String, Server> servers, Map<String, String> origin) {
		String location = this.properties.getServersConfiguration();
		if (location == null || location.isBlank()) {
			return;
		}
		String property = McpStdioProperties.PREFIX + ".servers-configuration";
		Resource resource = this.resourceLoader.getResource(location);
		if (!resource.exists()) {
			problem("(servers file)", property, "the file " + location + " does not exist",
					"point it at an existing mcpServers JSON file, or remove the property");
			return;
		}
		if (!resource.isReadable()) {
			// a directory, or a file the application may not read
			problem("(servers file)", property, "the file " + location + " cannot be read",
					"make it a readable mcpServers JSON file, or remove the property");
			return;
		}
		try {
			for (Map.Entry<String, Server> entry : ServersConfigurationFile.read(resource).entrySet()) {
				String name = entry.getKey();
				if (servers.containsKey(name)) {
					problem(name, SERVERS + name, "the server is configured both here and in " + location,
							"remove it from one of the two places: a name may appear only once");
					continue;
				}
				servers.put(name, entry.getValue());
				origin.put(name, location + " mcpServers." + name);
			}
		}
		catch (ServersConfigurationFile.InvalidFileException ex) {
			problem("(servers file)", property, "the file " + location + " is unusable: " + ex.getMessage(),
					"fix the file; the format is {\"mcpServers\": {\"name\": {\"command\": \"...\", \"args\": [...], "
							+ "\"env\": {...}}}}");
		}
	}

	private @Nullable McpStdioServerDefinition resolve(String name, Server server, @Nullable String origin,
			Duration checkInterval) {
		String prefix = SERVERS + name + ".";
		int before = this.problems.size();
		if (!NAME.matcher(name).matches()) {
			problem(name, SERVERS + name, "the name is not of the form [a-zA-Z0-9._-]+",
					"rename the server using letters, digits, '.', '_' and '-' only");
		}
		ServerSettings defaults = this.properties.getDefaults();
		boolean enabled = pick(server, defaults, ServerSettings::getEnabled, true);
		boolean required = pick(server, defaults, ServerSettings::getRequired, false);
		boolean inheritEnv = pick(server, defaults, ServerSettings::getInheritEnv, false);
		String workingDirectory = pick(server, defaults, ServerSettings::getWorkingDirectory, null);
		Duration startupTimeout = positive(name,
				source(server, ServerSettings::getStartupTimeout, prefix, "startup-timeout"), pick(server, defaults,
						ServerSettings::getStartupTimeout, McpStdioServerDefinition.DEFAULT_STARTUP_TIMEOUT));
		Duration sendTimeout = positive(name, source(server, ServerSettings::getSendTimeout, prefix, "send-timeout"),
				pick(server, defaults, ServerSettings::getSendTimeout, StdioServerSpec.DEFAULT_SEND_TIMEOUT));
		DataSize maxMessageSize = pick(server, defaults, ServerSettings::getMaxMessageSize,
				DataSize.ofBytes(StdioServerSpec.DEFAULT_MAX_MESSAGE_SIZE));
		if (maxMessageSize.toBytes() <= 0 || maxMessageSize.toBytes() > Integer.MAX_VALUE - 16) {
			problem(name, source(server, ServerSettings::getMaxMessageSize, prefix, "max-message-size"),
					"must be between 1B and 2GB, was " + maxMessageSize, "set a positive size such as 16MB");
		}
		int stderrTailLines = pick(server, defaults, ServerSettings::getStderrTailLines,
				StdioServerSpec.DEFAULT_STDERR_TAIL_LINES);
		if (stderrTailLines < 0 || stderrTailLines > 100_000) {
			problem(name, source(server, ServerSettings::getStderrTailLines, prefix, "stderr-tail-lines"),
					"must be between 0 and 100000, was " + stderrTailLines, "set a small count such as 50");
		}
		ShutdownTimeouts shutdown = shutdown(name, prefix, server, defaults);
		RestartPolicy restart = restart(name, prefix, server, defaults);
		Demand demand = demand(name, prefix, server, defaults);
		Limits limits = limits(name, prefix, server, defaults, checkInterval);
		Path directory = null;
		if (workingDirectory != null) {
			directory = Path.of(workingDirectory);
			if (!Files.isDirectory(directory)) {
				problem(name, source(server, ServerSettings::getWorkingDirectory, prefix, "working-directory"),
						"the directory " + workingDirectory + " does not exist",
						"create it or point working-directory at an existing directory");
			}
		}
		String command = server.getCommand();
		if (command == null || command.isBlank()) {
			problem(name, prefix + "command",
					"no command is set"
							+ ((origin != null && !origin.startsWith(SERVERS)) ? " (in " + origin + ")" : ""),
					"set the executable to run, such as npx, uvx or java");
		}
		else if (enabled) {
			checkCommand(name, prefix, command, server, inheritEnv, directory);
		}
		if (this.problems.size() > before) {
			return null;
		}
		StdioServerSpec spec = new StdioServerSpec(name, command, server.getArgs(), server.getEnv(), inheritEnv,
				directory, (int) maxMessageSize.toBytes(), stderrTailLines, sendTimeout, shutdown);
		return new McpStdioServerDefinition(spec, enabled, required, startupTimeout, restart, demand, limits);
	}

	private void checkCommand(String name, String prefix, String command, Server server, boolean inheritEnv,
			@Nullable Path directory) {
		String path = server.getEnv().get("PATH");
		if (path == null) {
			path = this.jvmEnvironment.get("PATH");
		}
		try {
			CommandLocator.locate(command, path, directory);
		}
		catch (CommandNotFoundException ex) {
			problem(name, prefix + "command", ex.getMessage(),
					"install it, use its absolute path, or add its directory to PATH");
		}
	}

	private ShutdownTimeouts shutdown(String name, String prefix, Server server, ServerSettings defaults) {
		Duration drain = positive(name,
				source(server, (s) -> s.getShutdown().getDrainTimeout(), prefix, "shutdown.drain-timeout"),
				pick(server, defaults, (s) -> s.getShutdown().getDrainTimeout(), ShutdownTimeouts.DEFAULTS.drain()));
		Duration stdinClose = positive(name,
				source(server, (s) -> s.getShutdown().getStdinCloseTimeout(), prefix, "shutdown.stdin-close-timeout"),
				pick(server, defaults, (s) -> s.getShutdown().getStdinCloseTimeout(),
						ShutdownTimeouts.DEFAULTS.stdinClose()));
		Duration terminate = positive(name,
				source(server, (s) -> s.getShutdown().getTerminateTimeout(), prefix, "shutdown.terminate-timeout"),
				pick(server, defaults, (s) -> s.getShutdown().getTerminateTimeout(),
						ShutdownTimeouts.DEFAULTS.terminate()));
		return new ShutdownTimeouts(drain, stdinClose, terminate);
	}

	private RestartPolicy restart(String name, String prefix, Server server, ServerSettings defaults) {
		RestartPolicy builtIn = RestartPolicy.NEVER;
		String policy = pick(server, defaults, (s) -> s.getRestart().getPolicy(), "never");
		RestartPolicy.Mode mode = RestartPolicy.Mode.NEVER;
		try {
			mode = RestartPolicy.Mode.valueOf(policy.trim().replace('-', '_').toUpperCase(Locale.ROOT));
		}
		catch (IllegalArgumentException ex) {
			problem(name, source(server, (s) -> s.getRestart().getPolicy(), prefix, "restart.policy"),
					"unknown restart policy '" + policy + "'", "use one of never, on-failure, always");
		}
		int maxRestarts = pick(server, defaults, (s) -> s.getRestart().getMaxRestarts(), builtIn.maxRestarts());
		if (maxRestarts < 0) {
			problem(name, source(server, (s) -> s.getRestart().getMaxRestarts(), prefix, "restart.max-restarts"),
					"must not be negative, was " + maxRestarts, "set 0 or more");
		}
		Duration window = positive(name, source(server, (s) -> s.getRestart().getWindow(), prefix, "restart.window"),
				pick(server, defaults, (s) -> s.getRestart().getWindow(), builtIn.window()));
		Duration initialBackoff = positive(name,
				source(server, (s) -> s.getRestart().getInitialBackoff(), prefix, "restart.initial-backoff"),
				pick(server, defaults, (s) -> s.getRestart().getInitialBackoff(), builtIn.initialBackoff()));
		Duration maxBackoff = positive(name,
				source(server, (s) -> s.getRestart().getMaxBackoff(), prefix, "restart.max-backoff"),
				pick(server, defaults, (s) -> s.getRestart().getMaxBackoff(), builtIn.maxBackoff()));
		return new RestartPolicy(mode, Math.max(0, maxRestarts), window, initialBackoff, maxBackoff);
	}

	private Duration resourceCheckInterval() {
		Duration interval = this.properties.getResourceCheckInterval();
		return (interval != null)
				? positive("(all servers)", McpStdioProperties.PREFIX + ".resource-check-interval", interval)
				: Limits.DEFAULT_CHECK_INTERVAL;
	}

	private Demand demand(String name, String prefix, Server server, ServerSettings defaults) {
		StartMode start = pick(server, defaults, ServerSettings::getStart, Demand.EAGER.start());
		Duration idleTimeout = pick(server, defaults, ServerSettings::getIdleTimeout, Demand.EAGER.idleTimeout());
		if (idleTimeout != null) {
			idleTimeout = positive(name, source(server, ServerSettings::getIdleTimeout, prefix, "idle-timeout"),
					idleTimeout);
		}
		return new Demand(start, idleTimeout);
	}

	private Limits limits(String name, String prefix, Server server, ServerSettings defaults, Duration checkInterval) {
		DataSize maxMemory = pick(server, defaults, ServerSettings::getMaxMemory, null);
		if (maxMemory != null && maxMemory.toBytes() <= 0) {
			problem(name, source(server, ServerSettings::getMaxMemory, prefix, "max-memory"),
					"must be positive, was " + maxMemory, "set a size such as 512MB, or remove it for no limit");
		}
		Integer maxProcesses = pick(server, defaults, ServerSettings::getMaxProcesses, null);
		if (maxProcesses != null && maxProcesses < 1) {
			problem(name, source(server, ServerSettings::getMaxProcesses, prefix, "max-processes"),
					"must be at least 1, was " + maxProcesses, "set a count such as 64, or remove it for no limit");
		}
		return new Limits((maxMemory != null) ? maxMemory.toBytes() : null, maxProcesses, checkInterval);
	}

	private Duration positive(String name, String property, Duration value) {
		if (value.isNegative() || value.isZero()) {
			problem(name, property, "must be positive, was " + value, "set a positive duration such as 2s");
			return Duration.ofSeconds(1);
		}
		return value;
	}

	private static <T> T pick(ServerSettings server, ServerSettings defaults,
			Function<ServerSettings, @Nullable T> getter, T builtIn) {
		T value = getter.apply(server);
		if (value != null) {
			return value;
		}
		value = getter.apply(defaults);
		return (value != null) ? value : builtIn;
	}

	/**
	 * Return the full name of the property a value came from: the server's own, else the
	 * one under {@code defaults} that it inherited, so an error points where to fix it.
	 */
	private String source(ServerSettings server, Function<ServerSettings, @Nullable Object> getter, String prefix,
			String key) {
		if (getter.apply(server) == null && getter.apply(this.properties.getDefaults()) != null) {
			return DEFAULTS + key;
		}
		return prefix + key;
	}

	private void problem(String server, String property, String problem, String action) {
		this.problems.add(new Problem(server, property, problem, action));
	}

}

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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import dev.mcpstdio.autoconfigure.ConfiguredServers.Configured;
import dev.mcpstdio.autoconfigure.McpStdioProperties.Server;
import dev.mcpstdio.core.containment.ContainerRun;
import dev.mcpstdio.core.containment.Containment.SandboxSettings;
import dev.mcpstdio.core.tree.CommandLocator.CommandNotFoundException;
import dev.mcpstdio.core.tree.CommandLocator;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;
import org.springframework.util.unit.DataSize;

/**
 * The checks of one configured server: its bounds, name, per-user settings, command,
 * working directory, sandbox and container, every error reported to the problems.
 *
 * @author mcp-stdio authors
 */
final class ServerChecks {

	static final Duration TEN_MINUTES = Duration.ofMinutes(10);

	static final Duration ONE_HOUR = Duration.ofHours(1);

	private static final String SERVERS = ConfiguredServers.SERVERS;

	private static final String DEFAULTS = McpStdioProperties.PREFIX + ".defaults.";

	// a server's name is also a bean name, a metric tag, a logger category and a key
	private static final Pattern NAME = Pattern.compile("(?!.*\\.\\.)[a-zA-Z0-9](?:[a-zA-Z0-9._-]{0,62}[a-zA-Z0-9])?");

	private final Problems problems;

	private final @Nullable ClassLoader classLoader;

	/** The keys binding gave a value to under {@code defaults}. */
	private final Set<String> defaultsKeys;

	ServerChecks(Problems problems, @Nullable ClassLoader classLoader, Set<String> defaultsKeys) {
		this.problems = problems;
		this.classLoader = classLoader;
		this.defaultsKeys = defaultsKeys;
	}

	/**
	 * Check one server.
	 * @param configured the server
	 * @return its checked values, or {@code null} when it has errors
	 */
	@Nullable Checked check(Configured configured) {
		int before = this.problems.size();
		checkNames(configured);
		checkBounds(configured);
		Path directory = workingDirectory(configured);
		SandboxSettings sandbox = sandbox(configured);
		String command = command(configured, directory);
		if (command == null || this.problems.size() > before) {
			return null;
		}
		return new Checked(command, directory, sandbox);
	}

	/**
	 * Check a server's values against their bounds (a value beyond them is a unit typed
	 * wrong, and some would overflow or leave a server stuck), and its per-user settings.
	 */
	private void checkBounds(Configured configured) {
		Server server = configured.server();
		duration(configured, "startup-timeout", server.getStartupTimeout(), ONE_HOUR);
		duration(configured, "send-timeout", server.getSendTimeout(), ONE_HOUR);
		// a message is held in memory whole, and so is the stderr tail of every server
		DataSize maxMessageSize = server.getMaxMessageSize();
		check(configured, "max-message-size",
				maxMessageSize.toBytes() > 0 && maxMessageSize.compareTo(DataSize.ofMegabytes(256)) <= 0,
				"must be between 1B and 256MB, was " + maxMessageSize, "set a size such as 16MB");
		count(configured, "stderr-tail-lines", server.getStderrTailLines(), 0, 10_000, "set a small count such as 50");
		// each step at most 10m: a stop should fit in a shutdown phase
		McpStdioProperties.Shutdown shutdown = server.getShutdown();
		duration(configured, "shutdown.drain-timeout", shutdown.getDrainTimeout(), TEN_MINUTES);
		duration(configured, "shutdown.stdin-close-timeout", shutdown.getStdinCloseTimeout(), TEN_MINUTES);
		duration(configured, "shutdown.terminate-timeout", shutdown.getTerminateTimeout(), TEN_MINUTES);
		McpStdioProperties.Restart restart = server.getRestart();
		count(configured, "restart.max-restarts", restart.getMaxRestarts(), 0, 1000, "set a small count such as 5");
		duration(configured, "restart.window", restart.getWindow(), Duration.ofDays(1));
		duration(configured, "restart.initial-backoff", restart.getInitialBackoff(), ONE_HOUR);
		duration(configured, "restart.max-backoff", restart.getMaxBackoff(), ONE_HOUR);
		duration(configured, "container.engine-timeout", server.getContainer().getEngineTimeout(), TEN_MINUTES);
		checkPerUser(configured);
		if (server.getIdleTimeout() != null) {
			duration(configured, "idle-timeout", server.getIdleTimeout(), Duration.ofDays(7));
		}
		DataSize maxMemory = server.getMaxMemory();
		check(configured, "max-memory", maxMemory == null || maxMemory.toBytes() > 0,
				"must be positive, was " + maxMemory, "set a size such as 512MB, or remove it for no limit");
		Integer maxProcesses = server.getMaxProcesses();
		check(configured, "max-processes", maxProcesses == null || maxProcesses >= 1,
				"must be at least 1, was " + maxProcesses, "set a count such as 64, or remove it for no limit");
	}

	/**
	 * Check the instances of a per-user server, and that a shared one has no
	 * {@code user-env}: Spring Security tells who calls, its OAuth2 client gives the
	 * tokens.
	 */
	private void checkPerUser(Configured configured) {
		Server server = configured.server();
		String name = configured.name();
		if (server.getInstances() == McpStdioProperties.Instances.SHARED) {
			// user-env is no key of defaults: the server's own
			check(configured, "user-env", server.getUserEnv().isEmpty(),
					"is set for a shared server, whose one process would get the values of whichever user came first",
					"set " + SERVERS + name + ".instances=per-user");
			return;
		}
		check(configured, "instances",
				ClassUtils.isPresent("org.springframework.security.core.context.SecurityContextHolder",
						this.classLoader),
				"per-user needs Spring Security to tell who calls", "add spring-boot-starter-security");
		count(configured, "max-instances", server.getMaxInstances(), 1, 10_000, "set a count such as 50");
		duration(configured, "instance-wait", server.getInstanceWait(), TEN_MINUTES);
		server.getUserEnv().forEach((variable, value) -> {
			if (value.startsWith("oauth2:")
					&& !ClassUtils.isPresent("org.springframework.security.oauth2.client.OAuth2AuthorizedClientService",
							this.classLoader)) {
				this.problems.add(name, SERVERS + name + ".user-env." + variable,
						value + " needs Spring Security's OAuth2 client",
						"add spring-boot-starter-security-oauth2-client");
			}
		});
	}

	/**
	 * A name is also a bean name, a metric tag and a logger category; an operating system
	 * takes no variable whose name is empty or holds '=' or NUL: the start would fail.
	 */
	private void checkNames(Configured configured) {
		String name = configured.name();
		if (!NAME.matcher(name).matches()) {
			this.problems.add(name, SERVERS + name,
					"the name must be 1 to 64 letters, digits, '.', '_' or '-', begin and end with a letter or digit, "
							+ "and have no '..'" + configured.inFile(),
					"rename the server: its name is also a bean name, a metric tag and a logger category");
		}
		Set<String> variables = new LinkedHashSet<>(configured.server().getEnv().keySet());
		variables.addAll(configured.server().getUserEnv().keySet());
		for (String variable : variables) {
			if (variable.isEmpty() || variable.indexOf('=') >= 0 || variable.indexOf('\0') >= 0) {
				this.problems.add(name, configured.commandPrefix() + "env[" + variable + "]",
						"'" + variable + "' cannot name an environment variable: a name is not empty and holds no '=' "
								+ "or NUL" + configured.inFile(),
						"rename the variable");
			}
		}
	}

	/**
	 * Return the command, checked (with the container it runs) when the server is
	 * enabled, or {@code null} when none is set.
	 */
	private @Nullable String command(Configured configured, @Nullable Path directory) {
		String command = configured.server().getCommand();
		String property = configured.commandPrefix() + "command";
		if (command == null || command.isBlank()) {
			this.problems.add(configured.name(), property, "no command is set" + configured.inFile(),
					"set the executable to run, such as npx, uvx or java");
		}
		else if (configured.server().isEnabled() && !this.problems.concern(property)) {
			String path = configured.server().getEnv().get("PATH");
			try {
				CommandLocator.locate(command, (path != null) ? path : System.getenv("PATH"), directory);
			}
			catch (CommandNotFoundException ex) {
				this.problems.add(configured.name(), property, ex.getMessage() + configured.inFile(),
						"install it, use its absolute path, or add its directory to PATH");
			}
			checkContainer(configured, command, directory);
		}
		return command;
	}

	private @Nullable Path workingDirectory(Configured configured) {
		String workingDirectory = configured.server().getWorkingDirectory();
		if (workingDirectory == null) {
			return null;
		}
		Path directory = Path.of(workingDirectory);
		String inFile = configured.keys().contains("working-directory") ? configured.inFile() : "";
		check(configured, "working-directory", Files.isDirectory(directory),
				"the directory " + workingDirectory + " does not exist" + inFile,
				"create it or point working-directory at an existing directory");
		return directory;
	}

	/**
	 * Return the sandbox settings: a sandboxed server's paths must exist, and a container
	 * is sandboxed by its engine's options instead.
	 */
	private SandboxSettings sandbox(Configured configured) {
		McpStdioProperties.Sandbox sandbox = configured.server().getSandbox();
		boolean check = sandbox.isEnabled() && configured.server().isEnabled();
		String command = configured.server().getCommand();
		boolean containerRun;
		try {
			containerRun = command != null && ContainerRun.recognise(command, configured.server().getArgs()) != null;
		}
		catch (ContainerRun.InvalidCommandException ex) {
			containerRun = true;
		}
		check(configured, "sandbox.enabled", !(check && containerRun),
				"a docker run or podman run server runs in its container, which bubblewrap does not sandbox",
				"turn the sandbox off for it and use the engine's own options: --read-only, --network none, "
						+ "--cap-drop ALL, --security-opt no-new-privileges, -v for what it may write");
		return new SandboxSettings(sandbox.isEnabled(), sandbox.getNetwork(),
				paths(configured, "sandbox.read-write", sandbox.getReadWrite(), check),
				paths(configured, "sandbox.read-only", sandbox.getReadOnly(), check));
	}

	private List<Path> paths(Configured configured, String key, List<String> values, boolean check) {
		List<Path> paths = new ArrayList<>();
		for (String value : values) {
			Path path = Path.of(value);
			String property = source(configured, key) + "[" + paths.size() + "]";
			if (check && !path.isAbsolute()) {
				this.problems.add(configured.name(), property, "the path " + value + " is not absolute",
						"write its absolute path");
			}
			else if (check && !Files.exists(path)) {
				this.problems.add(configured.name(), property, "the path " + value + " does not exist",
						"create it, or remove it from " + key);
			}
			paths.add(path);
		}
		return paths;
	}

	/**
	 * A docker run or podman run that cannot serve MCP over stdio (-t, -d, no -i) is
	 * refused naming the argument; an engine command of its own must exist.
	 */
	private void checkContainer(Configured configured, String command, @Nullable Path directory) {
		McpStdioProperties.Container container = configured.server().getContainer();
		if (!container.isEnabled()) {
			return;
		}
		ContainerRun run;
		try {
			run = ContainerRun.recognise(command, configured.server().getArgs());
		}
		catch (ContainerRun.InvalidCommandException ex) {
			String argument = (ex.argIndex() >= 0) ? "args[" + ex.argIndex() + "]" : "args";
			this.problems.add(configured.name(), configured.commandPrefix() + argument,
					ex.getMessage() + configured.inFile(),
					"change the container's arguments as described, or set " + SERVERS + configured.name()
							+ ".container.enabled=false to run the command as given (its container is then ended only "
							+ "through its process tree)");
			return;
		}
		String engineCommand = container.getEngineCommand();
		if (run != null && engineCommand != null && !engineCommand.isBlank()) {
			try {
				CommandLocator.locate(engineCommand, System.getenv("PATH"), directory);
			}
			catch (CommandNotFoundException ex) {
				this.problems.add(configured.name(), source(configured, "container.engine-command"), ex.getMessage(),
						"install it, use its absolute path, or remove the property to use the server's command");
			}
		}
	}

	private void duration(Configured configured, String key, Duration value, Duration max) {
		duration(configured.name(), source(configured, key), value, max);
	}

	void duration(String server, String property, Duration value, Duration max) {
		if (value.isNegative() || value.isZero()) {
			this.problems.add(server, property, "must be positive, was " + value, "set a positive duration such as 2s");
		}
		else if (value.compareTo(max) > 0) {
			this.problems.add(server, property, "must be at most " + format(max) + ", was " + format(value),
					"set a duration up to " + format(max));
		}
	}

	private void count(Configured configured, String key, int value, int min, int max, String action) {
		check(configured, key, value >= min && value <= max,
				"must be between " + min + " and " + max + ", was " + value, action);
	}

	/**
	 * Report the value of a server's key unless it is valid.
	 */
	private void check(Configured configured, String key, boolean valid, String problem, String action) {
		if (!valid) {
			this.problems.add(configured.name(), source(configured, key), problem, action);
		}
	}

	/**
	 * Return the full name of the property a value came from: the server's own, else the
	 * one under {@code defaults} that it inherited, so that an error points where to fix
	 * it.
	 */
	private String source(Configured configured, String key) {
		boolean inherited = !configured.keys().contains(key) && this.defaultsKeys.contains(key);
		return (inherited ? DEFAULTS : SERVERS + configured.name() + ".") + key;
	}

	/**
	 * Return a duration the way it is configured, such as {@code 10m} or {@code 500ms}.
	 */
	private static String format(Duration duration) {
		if (duration.isNegative() || duration.isZero() || duration.getNano() % 1_000_000 != 0) {
			return duration.toString();
		}
		if (duration.getNano() != 0) {
			return (duration.getSeconds() < 1_000_000_000L) ? duration.toMillis() + "ms" : duration.toString();
		}
		long seconds = duration.getSeconds();
		return (seconds % 86_400 == 0) ? (seconds / 86_400) + "d" : (seconds % 3600 == 0) ? (seconds / 3600) + "h"
				: (seconds % 60 == 0) ? (seconds / 60) + "m" : seconds + "s";
	}

	/**
	 * The values of a server that the checks resolved.
	 *
	 * @param command its command
	 * @param directory its working directory, if any
	 * @param sandbox its sandbox settings
	 */
	record Checked(String command, @Nullable Path directory, SandboxSettings sandbox) {

	}

}

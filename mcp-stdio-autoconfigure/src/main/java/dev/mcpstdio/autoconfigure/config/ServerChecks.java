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

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import dev.mcpstdio.core.containment.ContainerRun;
import dev.mcpstdio.core.tree.CommandLocator.CommandNotFoundException;
import dev.mcpstdio.core.tree.CommandLocator;
import org.jspecify.annotations.Nullable;

/**
 * The checks of one configured server: its name, bounds, command, working directory,
 * sandbox and container, every error reported to the problems.
 *
 * @author mcp-stdio authors
 */
final class ServerChecks {

	private static final String SERVERS = ServersBinder.SERVERS;

	// a server's name is also a bean name, a metric tag, a logger category and a key
	private static final Pattern NAME = Pattern.compile("(?!.*\\.\\.)[a-zA-Z0-9](?:[a-zA-Z0-9._-]{0,62}[a-zA-Z0-9])?");

	private final Problems problems;

	/** The keys binding gave a value to under {@code defaults}. */
	private final Set<String> defaultsKeys;

	private final ServerBounds bounds;

	ServerChecks(Problems problems, @Nullable ClassLoader classLoader, Set<String> defaultsKeys) {
		this.problems = problems;
		this.defaultsKeys = defaultsKeys;
		this.bounds = new ServerBounds(problems, classLoader, defaultsKeys);
	}

	/**
	 * Return the checks of values against their bounds.
	 * @return the bounds
	 */
	ServerBounds bounds() {
		return this.bounds;
	}

	/**
	 * Check one server.
	 * @param configured the server
	 * @return its checked values, or {@code null} when it has errors
	 */
	@Nullable Checked check(Configured configured) {
		int before = this.problems.size();
		checkNames(configured);
		this.bounds.check(configured);
		Path directory = workingDirectory(configured);
		checkSandbox(configured);
		String command = command(configured, directory);
		if (command == null || this.problems.size() > before) {
			return null;
		}
		return new Checked(command, directory);
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
		this.bounds.check(configured, "working-directory", Files.isDirectory(directory),
				"the directory " + workingDirectory + " does not exist" + inFile,
				"create it or point working-directory at an existing directory");
		return directory;
	}

	/**
	 * Check the sandbox settings: a sandboxed server's paths must exist, and a container
	 * is sandboxed by its engine's options instead.
	 */
	private void checkSandbox(Configured configured) {
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
		this.bounds.check(configured, "sandbox.enabled", !(check && containerRun),
				"a docker run or podman run server runs in its container, which bubblewrap does not sandbox",
				"turn the sandbox off for it and use the engine's own options: --read-only, --network none, "
						+ "--cap-drop ALL, --security-opt no-new-privileges, -v for what it may write");
		checkPaths(configured, "sandbox.read-write", sandbox.getReadWrite(), check);
		checkPaths(configured, "sandbox.read-only", sandbox.getReadOnly(), check);
	}

	private void checkPaths(Configured configured, String key, List<String> values, boolean check) {
		for (int i = 0; i < values.size(); i++) {
			String value = values.get(i);
			Path path = Path.of(value);
			String property = configured.source(key, this.defaultsKeys) + "[" + i + "]";
			if (check && !path.isAbsolute()) {
				this.problems.add(configured.name(), property, "the path " + value + " is not absolute",
						"write its absolute path");
			}
			else if (check && !Files.exists(path)) {
				this.problems.add(configured.name(), property, "the path " + value + " does not exist",
						"create it, or remove it from " + key);
			}
		}
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
				this.problems.add(configured.name(), configured.source("container.engine-command", this.defaultsKeys),
						ex.getMessage(),
						"install it, use its absolute path, or remove the property to use the server's command");
			}
		}
	}

	/**
	 * The values of a server that the checks resolved.
	 *
	 * @param command its command
	 * @param directory its working directory, if any
	 */
	record Checked(String command, @Nullable Path directory) {

	}

}

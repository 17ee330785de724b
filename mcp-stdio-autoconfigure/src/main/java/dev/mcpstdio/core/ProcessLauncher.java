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

package dev.mcpstdio.core;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.containment.Containment;
import dev.mcpstdio.core.containment.Containments;
import dev.mcpstdio.core.process.CommandLocator.CommandNotFoundException;
import dev.mcpstdio.core.process.CommandLocator;
import dev.mcpstdio.core.process.Platform;
import dev.mcpstdio.core.process.ProcReader;
import dev.mcpstdio.core.process.ProcessMarkers;
import dev.mcpstdio.core.process.ProcessScanner;
import dev.mcpstdio.core.process.ProcessTree;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Starts the process of one server with its environment, session and containment.
 *
 * @author mcp-stdio authors
 */
final class ProcessLauncher {

	private static final Log logger = LogFactory.getLog(ProcessLauncher.class);

	private static final Set<String> UNIX_ALLOWED = Set.of("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG",
			"TMPDIR");

	private static final Set<String> WINDOWS_ALLOWED = Set.of("APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA",
			"PATH", "PATHEXT", "PROCESSOR_ARCHITECTURE", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "TMP", "USERNAME",
			"USERPROFILE", "PROGRAMFILES", "COMSPEC", "WINDIR");

	/** A word that could be a variable name, as environment variables are written. */
	private static final Pattern WORD = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

	private final Platform platform;

	private final Map<String, String> jvmEnvironment;

	private final ProcessScanner scanner;

	private final Containments containments;

	private final ProcReader proc;

	private final String application;

	ProcessLauncher(Platform platform, Map<String, String> jvmEnvironment, ProcessScanner scanner,
			Containments containments, ProcReader proc, String application) {
		this.platform = platform;
		this.jvmEnvironment = jvmEnvironment;
		this.scanner = scanner;
		this.containments = containments;
		this.proc = proc;
		this.application = application;
	}

	/**
	 * Start a server's process.
	 * @param spec what to start
	 * @return the started process
	 * @throws McpStdioException if the command cannot be run
	 */
	Launched launch(StdioServerSpec spec) {
		String instance = ProcessMarkers.newInstance();
		Containment.Start start = start(spec, instance);
		Containment containment = this.containments.prepare(start, instance);
		List<String> command = new ArrayList<>();
		if (this.platform.ownSessions()) {
			// setsid execs in place: the server's pid is also its process group and
			// session
			command.add(this.platform.setsid());
		}
		// never kept in the spec: logs and the endpoint show the user's command line
		command.addAll(containment.command());
		ProcessBuilder builder = new ProcessBuilder(command);
		builder.environment().clear();
		builder.environment().putAll(start.env());
		if (spec.workingDirectory() != null) {
			builder.directory(spec.workingDirectory().toFile());
		}
		Process process;
		try {
			process = builder.start();
		}
		catch (IOException ex) {
			containment.release();
			throw new McpStdioException(spec.name(),
					"Could not start MCP server '" + spec.name() + "' (" + spec.commandLine() + "): " + ex.getMessage(),
					ex);
		}
		this.scanner.invalidate();
		long startTime = this.platform.hasProcFileSystem() ? ProcessTree.startTimeOfChild(process, this.proc)
				: Math.max(0, this.scanner.startTimeOf(process.pid()));
		logger.debug("Launched " + spec.commandLine() + " as pid " + process.pid() + ", instance " + instance);
		Set<String> withheld = new HashSet<>(this.jvmEnvironment.keySet());
		withheld.removeAll(start.env().keySet());
		return new Launched(process, instance, startTime, containment, Set.copyOf(withheld));
	}

	/**
	 * Return what a start of a server runs: its environment and its executable.
	 * @param spec the server
	 * @param instance the id of the start
	 * @return the start
	 * @throws McpStdioException if its command is not found
	 */
	Containment.Start start(StdioServerSpec spec, String instance) {
		Map<String, String> env = environment(spec, this.jvmEnvironment, instance, this.application);
		List<String> command = new ArrayList<>();
		try {
			command.add(CommandLocator.locate(spec.command(), CommandLocator.pathOf(env), spec.workingDirectory())
				.toString());
		}
		catch (CommandNotFoundException ex) {
			throw new McpStdioException(spec.name(),
					"Could not start MCP server '" + spec.name() + "': " + ex.getMessage(), ex);
		}
		command.addAll(spec.args());
		return new Containment.Start(spec.name(), command, spec.workingDirectory(), env,
				new Containment.Settings(spec.container(), spec.sandbox(), spec.shutdown().terminate()));
	}

	/**
	 * Return the environment for one start of a server: an allow-list of the JVM's own
	 * variables (so that the application's secrets do not reach servers), its own
	 * variables, and the process markers on top.
	 * @param spec the server
	 * @param jvmEnvironment the JVM's environment
	 * @param instance the id of this start
	 * @param application the id of the application, for the start-up sweep
	 * @return the complete environment
	 */
	static Map<String, String> environment(StdioServerSpec spec, Map<String, String> jvmEnvironment, String instance,
			String application) {
		Map<String, String> env = new LinkedHashMap<>();
		for (Map.Entry<String, String> entry : jvmEnvironment.entrySet()) {
			if (spec.inheritEnv() || isAllowed(entry.getKey())) {
				env.put(entry.getKey(), entry.getValue());
			}
		}
		env.putAll(spec.env());
		// Markers last: a configured value must not hide a process from the tree
		env.put(ProcessMarkers.SERVER, spec.name());
		env.put(ProcessMarkers.OWNER_PID, Long.toString(ProcessMarkers.CURRENT_PID));
		env.put(ProcessMarkers.INSTANCE, instance);
		env.put(ProcessMarkers.APPLICATION, application);
		return env;
	}

	static boolean isAllowed(String name) {
		return Platform.current().isWindows() ? WINDOWS_ALLOWED.contains(name.toUpperCase(Locale.ROOT))
				: (UNIX_ALLOWED.contains(name) || name.startsWith("LC_"));
	}

	/**
	 * Explain a start-up failure caused by the allow-list: the first variable the stderr
	 * of a server that exited names, that the application has but the server did not get.
	 * @param jvmVariables the names of the JVM's environment variables
	 * @param serverVariables the names of the variables the server got
	 * @param stderrTail the last lines of the server's stderr
	 * @param origin where the server was configured: the hint names the user's own key
	 * @return one sentence naming the variable (never its value) and how to pass it, or
	 * {@code null}
	 */
	static @Nullable String hint(Set<String> jvmVariables, Set<String> serverVariables, List<String> stderrTail,
			StdioServerSpec.Origin origin) {
		for (String line : stderrTail) {
			Matcher matcher = WORD.matcher(line);
			while (matcher.find()) {
				String word = matcher.group();
				// shorter names are likely ordinary words, and so is a lower-case word of
				// stderr ("path", "user"); http_proxy is not
				boolean variableLike = word.length() >= 3
						&& (word.indexOf('_') >= 0 || word.chars().anyMatch(Character::isUpperCase));
				if (variableLike && jvmVariables.contains(word) && !serverVariables.contains(word)) {
					return "Hint: the server's stderr names " + word + ", a variable of the application that the "
							+ "server did not get (a server gets only an allow-list of the application's "
							+ "environment); pass it with " + origin.passVariable(word) + " or set "
							+ origin.inheritEnvProperty() + "=true";
				}
			}
		}
		return null;
	}

	/**
	 * A started server process.
	 *
	 * @param process the process
	 * @param instance its instance marker
	 * @param startTime its start time, 0 when unknown
	 * @param containment its container and cgroup, if any
	 * @param withheldVariables the names (never the values) of the application's
	 * environment variables the process did not get
	 */
	record Launched(Process process, String instance, long startTime, Containment containment,
			Set<String> withheldVariables) {

	}

}

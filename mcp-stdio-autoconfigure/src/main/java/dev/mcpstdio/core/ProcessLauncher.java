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
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.CommandLocator.CommandNotFoundException;
import dev.mcpstdio.core.containment.Containment;
import dev.mcpstdio.core.containment.Containments;
import dev.mcpstdio.core.containment.OrphanGuard;
import dev.mcpstdio.core.process.Platform;
import dev.mcpstdio.core.process.ProcReader;
import dev.mcpstdio.core.process.ProcessMarkers;
import dev.mcpstdio.core.process.ProcessScanner;
import dev.mcpstdio.core.process.ProcessTree;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Starts the process of one server: finds its executable, builds its environment (the
 * allow-list, its own variables and the markers), adds what makes its container ours,
 * makes it lead its own session and join its own cgroup where the platform can, and tells
 * the orphan guard about it.
 *
 * @author mcp-stdio authors
 */
final class ProcessLauncher {

	private static final Log logger = LogFactory.getLog(ProcessLauncher.class);

	private final Platform platform;

	private final Map<String, String> jvmEnvironment;

	private final ProcessScanner scanner;

	private final OrphanGuard guard;

	private final Containments containments;

	private final ProcReader proc;

	private final String application;

	ProcessLauncher(Platform platform, Map<String, String> jvmEnvironment, ProcessScanner scanner, OrphanGuard guard,
			Containments containments, ProcReader proc, String application) {
		this.platform = platform;
		this.jvmEnvironment = jvmEnvironment;
		this.scanner = scanner;
		this.guard = guard;
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
		this.guard.started(process.pid(), startTime, this.platform.ownSessions(), spec.shutdown().stdinClose(),
				spec.shutdown().terminate());
		logger.debug("Launched " + spec.commandLine() + " as pid " + process.pid() + ", instance " + instance);
		return new Launched(process, instance, startTime, containment, withheld(start.env()));
	}

	/**
	 * Return what a start of a server runs: its environment and its executable.
	 * @param spec the server
	 * @param instance the id of the start
	 * @return the start
	 * @throws McpStdioException if its command is not found
	 */
	Containment.Start start(StdioServerSpec spec, String instance) {
		Map<String, String> env = ServerEnvironment.build(spec, this.jvmEnvironment, instance, this.application);
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
		return new Containment.Start(spec.name(), command, spec.workingDirectory(), env, spec.container(),
				spec.shutdown().terminate());
	}

	/** The names of the application's variables that the server did not get. */
	private Set<String> withheld(Map<String, String> env) {
		Set<String> withheld = new HashSet<>(this.jvmEnvironment.keySet());
		withheld.removeAll(env.keySet());
		return Set.copyOf(withheld);
	}

	/**
	 * A started server process.
	 *
	 * @param process the process
	 * @param instance its instance marker
	 * @param startTime its start time, 0 when unknown
	 * @param containment its container and cgroup, if any
	 * @param withheldVariables the names of the application's environment variables that
	 * the process did not get (names only: never a value)
	 */
	record Launched(Process process, String instance, long startTime, Containment containment,
			Set<String> withheldVariables) {

	}

}

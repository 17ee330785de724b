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

package dev.mcpstdio.core.server;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.containment.Containment;
import dev.mcpstdio.core.containment.Containments;
import dev.mcpstdio.core.containment.OrphanGuard;
import dev.mcpstdio.core.server.io.ServerPipes;
import dev.mcpstdio.core.tree.CommandLocator;
import dev.mcpstdio.core.tree.CommandLocator.CommandNotFoundException;
import dev.mcpstdio.core.tree.Membership;
import dev.mcpstdio.core.tree.Platform;
import dev.mcpstdio.core.tree.ProcReader;
import dev.mcpstdio.core.tree.ProcessMarkers;
import dev.mcpstdio.core.tree.ProcessScanner;
import dev.mcpstdio.core.tree.ProcessTree;
import dev.mcpstdio.core.tree.TreeTerminator;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The launcher of a host's server processes: it spawns each, hands it its
 * {@link ProcessParts}, and counts what they run.
 *
 * @author mcp-stdio authors
 */
public final class ProcessLauncher implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(ProcessLauncher.class);

	private final Platform platform;

	private final ProcReader proc;

	private final Membership membership;

	private final Containments containments;

	private final Map<String, String> jvmEnvironment;

	private final String application;

	private final ProcessParts parts;

	/**
	 * Create the launcher of one host.
	 * @param machine the machine's processes and the host's containments
	 * @param tasks the threads that run exits, stops and other tasks that may block
	 * @param scheduler the one thread of timed tasks
	 * @param environment the application's environment, of which servers get an
	 * allow-list
	 * @param application the application's id, a marker of its servers
	 */
	public ProcessLauncher(Machine machine, Executor tasks, ScheduledExecutorService scheduler,
			Map<String, String> environment, String application) {
		this.platform = machine.platform();
		this.proc = machine.proc();
		this.membership = machine.membership();
		this.containments = machine.containments();
		this.jvmEnvironment = environment;
		this.application = application;
		ProcessTrees trees = new ProcessTrees(machine.scanner(),
				new TreeTerminator(machine.scanner(), ShutdownTimeouts.KILL_WAIT),
				new ProcessCensus(machine.scanner(), machine.membership()));
		this.parts = new ProcessParts(new ProcessThreads(tasks, scheduler), new ExitWatcher(tasks), new StopCohort(),
				trees, new ServerPipes(tasks, scheduler), machine.guard());
	}

	/**
	 * Start a server process.
	 * @param spec what to start
	 * @param listener receives its messages and its end
	 * @return the running process
	 * @throws McpStdioException if it cannot be started; nothing is left running then
	 */
	public StdioServerProcess start(StdioServerSpec spec, MessageListener listener) {
		Launched launched = launch(spec);
		try {
			this.parts.guard()
				.started(launched.process().pid(), launched.startTime(), this.platform.ownSessions(),
						spec.shutdown().stdinClose(), spec.shutdown().terminate());
			return StdioServerProcess.run(spec, this.parts, launched, treeOf(launched), listener);
		}
		catch (RuntimeException | Error ex) {
			// Spawned but not run: end it now, or it would run untracked
			abandon(spec, launched);
			if (ex instanceof McpStdioException stdio) {
				throw stdio;
			}
			throw new McpStdioException(spec.name(),
					"Could not run " + McpStdioException.describe(spec.name()) + " after starting it: " + ex, ex);
		}
	}

	private ProcessTree treeOf(Launched launched) {
		return ProcessTree.ofChild(launched.process(), launched.startTime(), launched.instance(),
				this.platform.ownSessions(), this.platform.hasProcFileSystem() ? this.proc : null, this.membership);
	}

	private void abandon(StdioServerSpec spec, Launched launched) {
		ProcessTree tree = treeOf(launched);
		Duration terminate = spec.shutdown().terminate();
		launched.containment()
			.terminate(terminate,
					() -> this.parts.trees()
						.terminator()
						.escalate(tree::members, launched.startTime(), terminate, new TreeTerminator.Escalation() {
						}));
		launched.containment().release();
		this.parts.guard().ended(launched.process().pid());
	}

	/**
	 * Start a server's process.
	 * @param spec what to start
	 * @return the started process
	 * @throws McpStdioException if the command cannot be run
	 */
	private Launched launch(StdioServerSpec spec) {
		String instance = ProcessMarkers.newInstance();
		Containment.Start start = startOf(spec, instance);
		Containment containment = this.containments.prepare(start, instance);
		// setsid execs in place: the server's pid is also its process group and
		// session. The command is never kept in the spec: logs and the endpoint show the
		// user's command line
		ProcessBuilder builder = new ProcessBuilder(this.platform.inOwnSession(containment.command()));
		builder.environment().clear();
		try {
			ServerEnvironment.checkEnvironment(spec, start.env());
			builder.environment().putAll(start.env());
		}
		catch (RuntimeException ex) {
			containment.release();
			throw ex;
		}
		if (spec.workingDirectory() != null) {
			builder.directory(spec.workingDirectory().toFile());
		}
		Process process;
		try {
			process = builder.start();
		}
		catch (IOException ex) {
			containment.release();
			throw new McpStdioException(spec.name(), "Could not start " + McpStdioException.describe(spec.name()) + " ("
					+ spec.commandLine() + "): " + ex.getMessage(), ex);
		}
		this.parts.trees().scanner().invalidate();
		long startTime = this.platform.hasProcFileSystem() ? ProcessTree.startTimeOfChild(process, this.proc)
				: Math.max(0, this.parts.trees().scanner().startTimeOf(process.pid()));
		if (logger.isDebugEnabled()) {
			logger.debug("Launched " + spec.commandLine() + " as pid " + process.pid() + ", instance " + instance);
		}
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
	public Containment.Start startOf(StdioServerSpec spec, String instance) {
		Map<String, String> env = ServerEnvironment.environment(spec, instance, this.jvmEnvironment, this.application);
		List<String> command = new ArrayList<>();
		try {
			command.add(CommandLocator.locate(spec.command(), CommandLocator.pathOf(env), spec.workingDirectory())
				.toString());
		}
		catch (CommandNotFoundException ex) {
			throw new McpStdioException(spec.name(),
					"Could not start " + McpStdioException.describe(spec.name()) + ": " + ex.getMessage(), ex);
		}
		command.addAll(spec.args());
		return new Containment.Start(spec.name(), command, spec.workingDirectory(), env,
				new Containment.Settings(spec.container(), spec.sandbox(), spec.shutdown().terminate()));
	}

	/**
	 * Count the live processes of a server and their resident memory, as
	 * {@link ProcessCensus} counts them.
	 * @param serverName the server's name, or {@code null} to count only the trees of the
	 * given processes
	 * @param current the server's current processes, possibly none
	 * @return the figures
	 */
	public ProcessTree.Stats count(@Nullable String serverName, List<StdioServerProcess> current) {
		return this.parts.trees().census().count(serverName, current);
	}

	/** Stop the watcher of exits and the stderr log, once no server runs. */
	@Override
	public void close() {
		this.parts.exits().close();
		this.parts.pipes().close();
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

	/**
	 * The machine's processes as a host sees them, and its containments.
	 *
	 * @param platform the platform
	 * @param proc the reader of {@code /proc}
	 * @param membership the rule of which processes are a server's
	 * @param scanner the snapshots of the machine's processes
	 * @param guard the orphan guard
	 * @param containments the containments of starts
	 */
	public record Machine(Platform platform, ProcReader proc, Membership membership, ProcessScanner scanner,
			OrphanGuard guard, Containments containments) {

	}

}

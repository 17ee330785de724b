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

package dev.mcpstdio.core.containment;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.stream.Stream;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.containment.Containment.Start;
import dev.mcpstdio.core.tree.Membership;
import dev.mcpstdio.core.tree.ProcReader;
import dev.mcpstdio.core.tree.ProcessMarkers;
import dev.mcpstdio.core.tree.ProcessScanner;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The containment of one host's server starts, and the sweep of what dead JVMs left.
 *
 * @author mcp-stdio authors
 */
public final class Containments {

	private static final Log logger = LogFactory.getLog(Containments.class);

	private final OrphanGuard guard;

	private final Executor tasks;

	private final ProcessScanner scanner;

	private final Membership membership;

	private final ProcReader proc;

	private final boolean cgroupsEnabled;

	private @Nullable Cgroups cgroups;

	/** The {@code bwrap} commands that sandboxed when probed. */
	private final Set<List<String>> sandboxProbes = ConcurrentHashMap.newKeySet();

	/** The seccomp programs of the sandboxes. */
	private final SeccompPrograms seccompPrograms;

	/** The engines of the containers started so far, by identity; guarded by this. */
	private final Map<List<String>, ContainerEngine> engines = new LinkedHashMap<>();

	/**
	 * Create the containment of a host's servers.
	 * @param guard the host's orphan guard, which runs the reaper scripts
	 * @param tasks the host's threads, which end and count containers
	 * @param scanner reads the processes, for the sweep of marked ones
	 * @param membership the rule of what a marked process is
	 * @param proc where this host's processes are read
	 * @param cgroupsEnabled whether to run each server in a cgroup of its own, where the
	 * JVM may
	 */
	public Containments(OrphanGuard guard, Executor tasks, ProcessScanner scanner, Membership membership,
			ProcReader proc, boolean cgroupsEnabled) {
		this.guard = guard;
		this.tasks = tasks;
		this.scanner = scanner;
		this.membership = membership;
		this.proc = proc;
		this.cgroupsEnabled = cgroupsEnabled;
		this.seccompPrograms = new SeccompPrograms(guard::privateDirectory);
	}

	Executor tasks() {
		return this.tasks;
	}

	ProcReader proc() {
		return this.proc;
	}

	@Nullable Path privateDirectory() {
		return this.guard.privateDirectory();
	}

	/**
	 * Say which cgroup containment servers get, probed on first use and said once at
	 * INFO.
	 * @return the description
	 */
	public String describe() {
		return cgroups().description();
	}

	synchronized Cgroups cgroups() {
		if (this.cgroups == null) {
			this.cgroups = this.cgroupsEnabled ? Cgroups.detect(this.proc)
					: Cgroups.none("turned off by mcp.stdio.cgroup.enabled=false");
			logger.info("MCP server containment: " + this.cgroups.description());
		}
		return this.cgroups;
	}

	/**
	 * Prepare what contains one start: its container (for a container command) or its
	 * sandbox, inside its cgroup (where cgroups are used), each made known to the orphan
	 * guard.
	 * @param start the start
	 * @param instance its id ({@code MCP_STDIO_INSTANCE})
	 * @return the containment, with no part when there is nothing to contain
	 * @throws McpStdioException if its container command cannot serve MCP over stdio, or
	 * its sandbox cannot be had
	 */
	public Containment prepare(Start start, String instance) {
		ContainerRun run = recognise(start, true);
		boolean sandboxed = start.settings().sandbox().enabled();
		if (sandboxed && run != null) {
			throw new McpStdioException(start.server(), "Could not start " + McpStdioException.describe(start.server())
					+ ": a container is not sandboxed by bubblewrap: use the engine's own options");
		}
		Bubblewrap sandbox = sandboxed ? Bubblewrap.of(start, this.sandboxProbes, this.seccompPrograms) : null;
		Container container = (run != null) ? new Container(this, start, run, instance, ProcessMarkers.Owner.current())
				: null;
		if (container != null) {
			synchronized (this) {
				this.engines.putIfAbsent(ContainerReaper.identity(container.engine()), container.engine());
				this.guard.reaper("containers",
						ContainerReaper.script(this.engines.values(), ProcessMarkers.Owner.current()));
			}
		}
		Cgroups groups = cgroups();
		// a group's name has no dots: those of the instance would look like its files
		Cgroup group = groups.create(start.server(), instance.replace('.', '-'));
		if (group != null) {
			this.guard.reaper("cgroups", groups.reaper());
		}
		// outermost first
		return new Containment(start.command(),
				Stream.<Containment.Part>of(group, sandbox, container).filter(Objects::nonNull).toList());
	}

	private static @Nullable ContainerRun recognise(Start start, boolean strict) {
		if (!start.settings().container().enabled()) {
			return null;
		}
		List<String> command = start.command();
		try {
			return ContainerRun.recognise(command.get(0), command.subList(1, command.size()));
		}
		catch (ContainerRun.InvalidCommandException ex) {
			if (!strict) {
				// reported when the server starts
				return null;
			}
			String argument = (ex.argIndex() >= 0) ? "args[" + ex.argIndex() + "]" : "args";
			throw new McpStdioException(start.server(), "Could not start " + McpStdioException.describe(start.server())
					+ ": " + argument + ": " + ex.getMessage(), ex);
		}
	}

	/**
	 * End what dead JVMs of this host left, in this order: their containers, through the
	 * engines of the given servers (each engine once, with the longest
	 * {@code terminate-timeout} of its servers; one that does not answer is skipped with
	 * a WARN), their cgroups, then their marked processes, whose sweep would otherwise
	 * leave the containers stopped but not removed.
	 * @param servers the configured servers; those that are not container servers are
	 * ignored
	 * @param terminateTimeout how long the cgroups' and marked processes get after
	 * SIGTERM
	 * @param application the application whose marked processes to end, or {@code null}
	 * for every application's of this user (containers and cgroups name their JVM, not
	 * their application)
	 * @return what the sweep of marked processes did
	 */
	public Swept sweep(Collection<Start> servers, Duration terminateTimeout, @Nullable String application) {
		Map<List<String>, ContainerEngine> found = new LinkedHashMap<>();
		Map<List<String>, Duration> bounds = new LinkedHashMap<>();
		for (Start server : servers) {
			ContainerRun run = recognise(server, false);
			if (run != null) {
				ContainerEngine engine = ContainerEngine.of(run, server.command().get(0), server.env(),
						server.settings().container());
				List<String> identity = ContainerReaper.identity(engine);
				found.putIfAbsent(identity, engine);
				bounds.merge(identity, server.settings().terminate(), (a, b) -> (a.compareTo(b) >= 0) ? a : b);
			}
		}
		found.forEach((identity, engine) -> {
			try {
				Leftovers.sweepEngine(engine, bounds.get(identity));
			}
			catch (ContainerEngine.Failure ex) {
				logger.warn("Could not look for orphaned MCP server containers of " + engine + ": " + ex.getMessage());
			}
		});
		cgroups().sweep(terminateTimeout);
		return Leftovers.sweepProcesses(this.scanner, this.membership, application, terminateTimeout);
	}

	/**
	 * What the sweep of marked processes did.
	 *
	 * @param found orphans found
	 * @param killed orphans that needed SIGKILL
	 * @param survivors orphans still alive at the end
	 * @param pids the orphans' pids
	 */
	public record Swept(int found, int killed, int survivors, List<Long> pids) {

	}

}

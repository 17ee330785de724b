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
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Predicate;
import java.util.stream.Stream;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.containment.Containment.Start;
import dev.mcpstdio.core.tree.Membership;
import dev.mcpstdio.core.tree.ProcReader;
import dev.mcpstdio.core.tree.ProcessMarkers;
import dev.mcpstdio.core.tree.ProcessScanner;
import dev.mcpstdio.core.tree.ProcessTable.Proc;
import dev.mcpstdio.core.tree.ProcessTable;
import dev.mcpstdio.core.tree.TreeTerminator;
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

	/** The JVM's variables an engine's command-line interface reads. */
	private static final Set<String> ENGINE_VARIABLES = Set.of("PATH", "HOME", "USER", "LOGNAME", "TMPDIR",
			"XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "REGISTRY_AUTH_FILE");

	private static final List<String> ENGINE_VARIABLE_PREFIXES = List.of("DOCKER_", "CONTAINER_", "CONTAINERS_",
			"PODMAN_");

	private static final String REAPER = ReaperScripts.resource("reap-containers.sh");

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
				this.engines.putIfAbsent(identity(container.engine()), container.engine());
				this.guard.reaper("containers", reaper(this.engines.values(), ProcessMarkers.Owner.current()));
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
				List<String> identity = identity(engine);
				found.putIfAbsent(identity, engine);
				bounds.merge(identity, server.settings().terminate(), (a, b) -> (a.compareTo(b) >= 0) ? a : b);
			}
		}
		found.forEach((identity, engine) -> {
			try {
				sweepEngine(engine, bounds.get(identity));
			}
			catch (ContainerEngine.Failure ex) {
				logger.warn("Could not look for orphaned MCP server containers of " + engine + ": " + ex.getMessage());
			}
		});
		cgroups().sweep(terminateTimeout);
		return sweepProcesses(this.scanner, this.membership, application, terminateTimeout);
	}

	/**
	 * End the marked processes that a dead JVM started (its pid is not alive, or runs a
	 * process started at another time): SIGTERM, a bounded wait, SIGKILL to what is left,
	 * each proven an orphan again right before its signal. Without {@code /proc} there
	 * are no markers to find them by.
	 */
	static Swept sweepProcesses(ProcessScanner scanner, Membership membership, @Nullable String application,
			Duration terminateTimeout) {
		ProcessScanner everyProcess = scanner.everyProcess();
		List<Proc> orphans = orphans(everyProcess.scan(), membership, application);
		if (orphans.isEmpty()) {
			logger.debug("No orphaned MCP server processes found");
			return new Swept(0, 0, 0, List.of());
		}
		List<Long> pids = orphans.stream().map(Proc::pid).toList();
		Set<Long> owners = new TreeSet<>(orphans.stream().map((orphan) -> orphan.markers().ownerPid()).toList());
		TreeTerminator.Result ended = new TreeTerminator(everyProcess, Cgroup.KILL_WAIT).escalate(
				(table) -> orphans(table, membership, application), 0, terminateTimeout,
				new TreeTerminator.Escalation() {
				});
		scanner.invalidate();
		logger.warn("Ended " + orphans.size() + " orphaned MCP server "
				+ ((orphans.size() == 1) ? "process" : "processes") + " left by dead JVMs (owner pids " + owners
				+ "; pids " + pids + "): " + (orphans.size() - ended.killed()) + " ended by SIGTERM, " + ended.killed()
				+ " needed SIGKILL" + ((ended.survivors() == 0) ? "" : ", " + ended.survivors() + " survived"));
		return new Swept(orphans.size(), ended.killed(), ended.survivors(), pids);
	}

	/**
	 * Return the marked processes of this user (and application) whose owner JVM is gone;
	 * a marked process whose owner lives, and anything without the markers, is never one.
	 */
	static List<Proc> orphans(ProcessTable table, Membership membership, @Nullable String application) {
		return table.all()
			.stream()
			.filter((proc) -> proc.pid() != ProcessMarkers.CURRENT_PID && membership.isMarked(proc, (markers) -> {
				ProcessMarkers.Owner owner = markers.owner();
				return (application == null || application.equals(markers.application())) && owner != null
						&& !owner.isAlive();
			}))
			.toList();
	}

	/**
	 * End the orphaned containers of one engine, those whose owner JVM of this host is
	 * gone: SIGTERM to those running, one wait of up to {@code terminateTimeout} for all,
	 * then {@code rm -f} for all.
	 * @param engine the engine
	 * @param terminateTimeout how long to wait after SIGTERM
	 * @param filters more {@code ps --filter} expressions, to sweep a subset
	 * @return what was found and done
	 * @throws ContainerEngine.Failure if the engine cannot list its containers
	 */
	static ContainerStop sweepEngine(ContainerEngine engine, Duration terminateTimeout, String... filters) {
		long start = System.nanoTime();
		List<OwnedContainer> orphans = orphans(engine.listOwned(filters), ProcessMarkers.Owner::isAlive);
		if (orphans.isEmpty()) {
			if (logger.isDebugEnabled()) {
				logger.debug("No orphaned MCP server containers found (" + engine + ")");
			}
			return new ContainerStop(List.of(), 0, 0, true, Duration.ofNanos(System.nanoTime() - start), null);
		}
		List<String> running = orphans.stream().filter(OwnedContainer::running).map(OwnedContainer::id).toList();
		ContainerStop stop = ContainerStop.end(engine, running, orphans.stream().map(OwnedContainer::id).toList(),
				terminateTimeout);
		if (stop.error() != null) {
			// rm -f still ended them
			if (logger.isDebugEnabled()) {
				logger.debug("Could not signal orphaned containers: " + stop.error());
			}
		}
		List<String> described = orphans.stream()
			.map((orphan) -> ContainerEngine.shortId(orphan.id()) + " (server '" + orphan.server() + "', owner "
					+ ((orphan.owner() != null) ? orphan.owner().id() : "?") + ")")
			.toList();
		logger.warn("Removed " + orphans.size() + " orphaned MCP server "
				+ ((orphans.size() == 1) ? "container" : "containers") + " left by dead JVMs: " + described + "; "
				+ stop.terminated() + " were running, " + stop.killed() + " needed a kill after SIGTERM"
				+ (stop.removed() ? "" : "; some could not be removed") + " ("
				+ Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms)");
		return stop;
	}

	/**
	 * Return the containers of this host's owners that are gone; a container whose owner
	 * lives, runs on another host sharing the engine, or is not readable is never
	 * touched.
	 * @param containers our containers
	 * @param alive tells whether an owner of this host lives
	 * @return the orphans
	 */
	static List<OwnedContainer> orphans(List<OwnedContainer> containers, Predicate<ProcessMarkers.Owner> alive) {
		return containers.stream().filter((container) -> {
			ProcessMarkers.Owner owner = container.owner();
			return owner != null && owner.isLocal() && !owner.equals(ProcessMarkers.Owner.current())
					&& !alive.test(owner);
		}).toList();
	}

	/**
	 * Return the script that the orphan guard runs once a JVM is gone, to end its
	 * containers through each engine once. It holds no secret: only the engines' own
	 * variables are passed.
	 * @param engines the engines the JVM used
	 * @param owner the JVM
	 * @return the script
	 */
	static String reaper(Collection<ContainerEngine> engines, ProcessMarkers.Owner owner) {
		StringBuilder script = new StringBuilder("# mcp-stdio: ends the containers of JVM " + owner.id() + " on "
				+ owner.host() + " once it is gone; run by its orphan guard as: sh THIS graceMillis termMillis\n");
		script.append("owned() { e=$1; shift; \"$e\" ps -a -q --no-trunc --filter ")
			.append(ReaperScripts.quote("label=" + ContainerEngine.OWNER_LABEL + "=" + owner.id()))
			.append(" --filter ")
			.append(ReaperScripts.quote("label=" + ContainerEngine.OWNER_HOST_LABEL + "=" + owner.host()))
			.append(" \"$@\" 2>/dev/null; }\n");
		Map<List<String>, ContainerEngine> distinct = new LinkedHashMap<>();
		engines.forEach((engine) -> distinct.putIfAbsent(identity(engine), engine));
		List<String> names = new ArrayList<>();
		distinct.forEach((identity, engine) -> {
			names.add("engine" + (names.size() + 1));
			// "remove" stands for the engine's kill-and-remove subcommand
			script.append(names.get(names.size() - 1)).append("() { [ \"$1\" = remove ] && { shift; set --");
			engine.removeCommand().forEach((word) -> script.append(' ').append(ReaperScripts.quote(word)));
			long seconds = Math.max(1, (engine.timeout().toMillis() + 999) / 1000);
			script.append(" \"$@\"; }; ${bound:+timeout -s KILL ").append(seconds).append("} env -i");
			identity.forEach((word) -> script.append(' ').append(ReaperScripts.quote(word)));
			script.append(" \"$@\"; }\n");
		});
		script.append("engines='").append(String.join(" ", names)).append("'\n");
		return script.append(REAPER).toString();
	}

	/**
	 * Return what the reaper script runs an engine as: its variables, its executable and
	 * its global options. Two engines with the same identity are reaped and swept once.
	 * @param engine the engine
	 * @return the identity
	 */
	static List<String> identity(ContainerEngine engine) {
		List<String> command = new ArrayList<>();
		for (Map.Entry<String, String> variable : new TreeMap<>(engine.environment()).entrySet()) {
			String name = variable.getKey();
			if (ENGINE_VARIABLES.contains(name) || ENGINE_VARIABLE_PREFIXES.stream().anyMatch(name::startsWith)) {
				command.add(name + "=" + variable.getValue());
			}
		}
		command.addAll(engine.prefix());
		return command;
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

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

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.mcpstdio.core.containment.CgroupContainment;
import dev.mcpstdio.core.containment.ServerCgroup;
import dev.mcpstdio.core.containment.ContainerEngine;
import dev.mcpstdio.core.containment.ContainerLaunch;
import dev.mcpstdio.core.containment.ContainerStats;
import dev.mcpstdio.core.containment.ContainerStop;
import dev.mcpstdio.core.process.ProcReader;
import dev.mcpstdio.core.process.ProcessMarkers;
import dev.mcpstdio.core.process.ProcessTable;
import dev.mcpstdio.core.process.ProcessTable.Proc;
import dev.mcpstdio.core.support.Durations;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * What holds one server start besides its process tree: the container it runs in (for a
 * {@code docker run} or {@code podman run} command) and its cgroup. Step 4 of a stop ends
 * the container through its engine while the tree is being terminated, then whatever is
 * left in the cgroup; the census counts the processes of both.
 *
 * @author mcp-stdio authors
 */
public final class Containment {

	private static final Log logger = LogFactory.getLog(Containment.class);

	/** A start with neither container nor cgroup. */
	static final Containment NONE = new Containment("", null, null, CgroupContainment.none("not used"), Runnable::run,
			ProcReader.system());

	/** How long the engine's figures of a container are reused. */
	private static final long ENGINE_COUNT_MAX_AGE_NANOS = TimeUnit.SECONDS.toNanos(5);

	private static final ContainerStats NO_STATS = new ContainerStats(0, 0);

	private final String serverName;

	private final @Nullable ContainerLaunch container;

	private final @Nullable ServerCgroup cgroup;

	private final CgroupContainment cgroups;

	private final Executor tasks;

	private final ProcReader proc;

	/** Whether the container is known to be gone: a later step 4 skips the engine. */
	private volatile boolean containerEnded;

	private volatile boolean released;

	/**
	 * Whether the container's processes, with our markers, are in this host's
	 * {@code /proc}; {@code null} until the engine has told.
	 */
	private volatile @Nullable Boolean visibleOnHost;

	/**
	 * Counted through the engine whatever the host sees: see
	 * {@link #countThroughEngineOnly()}.
	 */
	private volatile boolean engineOnly;

	private volatile ContainerStats engineStats = NO_STATS;

	private volatile long engineCountedAt = System.nanoTime() - ENGINE_COUNT_MAX_AGE_NANOS;

	private final AtomicBoolean counting = new AtomicBoolean();

	Containment(String serverName, @Nullable ContainerLaunch container, @Nullable ServerCgroup cgroup,
			CgroupContainment cgroups, Executor tasks, ProcReader proc) {
		this.proc = proc;
		this.serverName = serverName;
		this.container = container;
		this.cgroup = cgroup;
		this.cgroups = cgroups;
		this.tasks = tasks;
	}

	@Nullable ContainerLaunch container() {
		return this.container;
	}

	@Nullable ServerCgroup cgroup() {
		return this.cgroup;
	}

	/**
	 * Return the command to start: the executable with the container's arguments (ours
	 * added) or the user's, joining the cgroup first where there is one.
	 * @param executable the resolved executable
	 * @param args the user's arguments
	 * @return the command
	 */
	List<String> command(String executable, List<String> args) {
		List<String> command = new ArrayList<>();
		command.add(executable);
		command.addAll((this.container != null) ? this.container.args() : args);
		return (this.cgroup != null) ? this.cgroup.wrap(command) : command;
	}

	/**
	 * Step 4 of a stop (or the end after any exit): end the container through its engine
	 * (SIGTERM, a wait of up to {@code terminateTimeout}, {@code rm -f}) while
	 * {@code tree} ends the process tree, then end what is left in the cgroup: processes
	 * that left the tree and cleared their markers. A container whose cidfile is still
	 * empty is looked for once the tree (the engine's command) has ended: a command that
	 * ended without writing it created no container, and costs no engine call.
	 * @param terminateTimeout how long to wait after SIGTERM
	 * @param tree ends the process tree
	 */
	void terminate(Duration terminateTimeout, Runnable tree) {
		CompletableFuture<@Nullable ContainerStop> container = null;
		ContainerLaunch launch = this.container;
		boolean created = launch != null && (launch.knownContainerId() != null || !launch.hasCidfile());
		if (created && !this.containerEnded) {
			container = CompletableFuture.supplyAsync(() -> launch.stop(terminateTimeout), this.tasks);
		}
		try {
			tree.run();
		}
		finally {
			if (container == null && launch != null && !this.containerEnded && launch.knownContainerId() != null) {
				// created while the tree was being ended
				container = CompletableFuture.supplyAsync(() -> launch.stop(terminateTimeout), this.tasks);
			}
			if (container != null) {
				report(awaitContainer(container, launch, terminateTimeout), terminateTimeout);
			}
			terminateCgroup(terminateTimeout);
		}
	}

	private @Nullable ContainerStop awaitContainer(CompletableFuture<@Nullable ContainerStop> stop,
			ContainerLaunch launch, Duration terminateTimeout) {
		// kill, wait, rm -f and a check of what is left: each engine call is bounded
		Duration bound = terminateTimeout.plus(launch.engine().timeout().multipliedBy(3)).plusSeconds(1);
		try {
			return stop.get(bound.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
		catch (ExecutionException | TimeoutException ex) {
			logger.error("MCP server '" + this.serverName + "': could not end its container through " + launch.engine()
					+ ": " + ((ex instanceof ExecutionException) ? ex.getCause() : ex));
			return null;
		}
	}

	private void report(@Nullable ContainerStop stop, Duration terminateTimeout) {
		if (stop == null) {
			return;
		}
		String container = "MCP server '" + this.serverName + "': container " + ContainerEngine.shortId(stop.id());
		if (!stop.removed()) {
			logger.error(container + " could not be removed: " + stop.error());
			return;
		}
		this.containerEnded = true;
		if (stop.killed()) {
			logger.warn(container + " did not stop within " + Durations.format(terminateTimeout)
					+ " after SIGTERM through the engine; removed it with rm -f (" + stop.took().toMillis() + " ms)");
		}
		else if (stop.terminated()) {
			logger.warn(container + " was still running; sent SIGTERM through the engine and removed it ("
					+ stop.took().toMillis() + " ms)");
		}
		else {
			logger.debug(container + " had stopped; removed it (" + stop.took().toMillis() + " ms)");
		}
	}

	private void terminateCgroup(Duration terminateTimeout) {
		ServerCgroup group = this.cgroup;
		// the usual case, an empty group, costs one read: no freeze, no signal
		if (group == null || this.released || group.isEmpty()) {
			return;
		}
		ServerCgroup.Result result = group.terminate(terminateTimeout);
		if (result.signalled() > 0 || result.survivors() > 0) {
			logger.warn("MCP server '" + this.serverName + "' left " + result.signalled()
					+ ((result.signalled() == 1) ? " process" : " processes")
					+ " in its cgroup outside its process tree and markers; sent SIGTERM"
					+ ((result.killed() > 0)
							? ", then killed " + result.killed() + " after " + Durations.format(terminateTimeout) : "")
					+ ((result.survivors() > 0) ? "; " + result.survivors() + " survived" : ""));
		}
	}

	/**
	 * Let go of what this start holds once it has ended: the container's cidfile and its
	 * directory, and the cgroup (with this JVM's group when it was the last).
	 */
	void release() {
		if (this.released) {
			return;
		}
		this.released = true;
		if (this.container != null) {
			this.container.close();
		}
		if (this.cgroup != null) {
			this.cgroups.remove(this.cgroup);
		}
	}

	/**
	 * Add to a census the live processes of the cgroup that a snapshot shows.
	 * @param found the processes counted so far, by pid
	 * @param table the snapshot
	 */
	void addMembers(Map<Long, Proc> found, ProcessTable table) {
		ServerCgroup group = this.cgroup;
		if (group == null || this.released) {
			return;
		}
		for (long pid : group.pids()) {
			Proc proc = table.get(pid);
			if (proc != null && pid != ProcessMarkers.CURRENT_PID) {
				found.putIfAbsent(pid, proc);
			}
		}
	}

	/**
	 * Return the container's processes and memory as the engine counts them, where this
	 * host cannot see them (an engine in a VM); zero where it can, since the census finds
	 * them by marker. Never waits for the engine: its figures (one call takes seconds)
	 * are refreshed in the background and may be a few seconds old.
	 * @return the figures
	 */
	ContainerStats engineFigures() {
		ContainerLaunch launch = this.container;
		boolean engineOnly = this.engineOnly;
		if (launch == null || this.containerEnded || (Boolean.TRUE.equals(this.visibleOnHost) && !engineOnly)) {
			return NO_STATS;
		}
		if (System.nanoTime() - this.engineCountedAt >= ENGINE_COUNT_MAX_AGE_NANOS
				&& this.counting.compareAndSet(false, true)) {
			try {
				this.tasks.execute(() -> countThroughEngine(launch));
			}
			catch (RejectedExecutionException ex) {
				this.counting.set(false);
			}
		}
		return (engineOnly || Boolean.FALSE.equals(this.visibleOnHost)) ? this.engineStats : NO_STATS;
	}

	private void countThroughEngine(ContainerLaunch launch) {
		try {
			String id = launch.knownContainerId();
			if (id == null || this.containerEnded) {
				return;
			}
			ContainerEngine engine = launch.engine();
			if (this.visibleOnHost == null && !this.engineOnly) {
				if (engine.mainPid(id) <= 0) {
					// not running (yet): ask again later
					return;
				}
				this.visibleOnHost = engine.processesVisibleOnHost(id, launch.instance(), this.proc);
				if (this.visibleOnHost) {
					return;
				}
			}
			this.engineStats = engine.stats(id);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not count the container of MCP server '" + this.serverName + "': " + ex);
		}
		finally {
			this.engineCountedAt = System.nanoTime();
			this.counting.set(false);
		}
	}

	/**
	 * Count the container through the engine even where this host sees its processes, as
	 * for an engine in a VM. For tests of that path on a machine that has none.
	 */
	void countThroughEngineOnly() {
		this.engineOnly = true;
		this.engineCountedAt = System.nanoTime() - ENGINE_COUNT_MAX_AGE_NANOS;
	}

}

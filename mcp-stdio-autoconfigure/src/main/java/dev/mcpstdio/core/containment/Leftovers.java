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

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

import dev.mcpstdio.core.containment.Containments.Swept;
import dev.mcpstdio.core.tree.Membership;
import dev.mcpstdio.core.tree.ProcessMarkers;
import dev.mcpstdio.core.tree.ProcessScanner;
import dev.mcpstdio.core.tree.ProcessTable;
import dev.mcpstdio.core.tree.ProcessTable.Proc;
import dev.mcpstdio.core.tree.TreeTerminator;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * What dead JVMs of this host left, found and ended at start-up: their marked processes
 * and their containers, each proven an orphan (its owner gone) before it is touched.
 *
 * @author mcp-stdio authors
 */
final class Leftovers {

	// logged under the containments' name, as the sweep always was
	private static final Log logger = LogFactory.getLog(Containments.class);

	private Leftovers() {
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
			if (logger.isDebugEnabled()) {
				logger.debug("No orphaned MCP server processes found");
			}
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

}

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
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import dev.mcpstdio.core.process.JvmOwner;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Ends, at start-up, the containers that JVMs of this host left behind: containers with
 * our labels whose owner JVM is gone (its pid is not alive, or runs a process started at
 * another time). A container whose owner lives, or whose owner runs on another host
 * sharing the engine, is never touched, nor is a container without our labels.
 *
 * @author mcp-stdio authors
 */
public final class ContainerSweep {

	private static final Log logger = LogFactory.getLog(ContainerSweep.class);

	private ContainerSweep() {
	}

	/**
	 * Find and end the orphaned containers of one engine: SIGTERM to those running, one
	 * wait of up to {@code terminateTimeout} for all of them, then {@code rm -f} for all.
	 * @param engine the engine
	 * @param terminateTimeout how long to wait after SIGTERM
	 * @param filters more {@code ps --filter} expressions, to sweep a subset
	 * @return what was found and done
	 * @throws ContainerEngineException if the engine cannot list its containers
	 */
	public static Result sweep(ContainerEngine engine, Duration terminateTimeout, String... filters) {
		long start = System.nanoTime();
		List<ContainerInfo> orphans = orphans(engine.listOwned(filters), JvmOwner::isAlive);
		if (orphans.isEmpty()) {
			logger.debug("No orphaned MCP server containers found (" + engine + ")");
			return new Result(List.of(), 0, 0, Duration.ofNanos(System.nanoTime() - start));
		}
		List<String> running = new ArrayList<>();
		for (ContainerInfo orphan : orphans) {
			try {
				if (orphan.running() && engine.kill(orphan.id(), "TERM")) {
					running.add(orphan.id());
				}
			}
			catch (ContainerEngineException ex) {
				// rm -f below still ends it
				logger.debug("Could not signal orphaned container " + orphan.id() + ": " + ex.getMessage());
			}
		}
		long deadline = System.nanoTime() + terminateTimeout.toNanos();
		int killed = 0;
		for (String id : running) {
			long left = Math.max(1, deadline - System.nanoTime());
			if (!engine.awaitExit(id, Duration.ofNanos(left))) {
				killed++;
			}
		}
		List<String> ids = new ArrayList<>();
		List<String> described = new ArrayList<>();
		for (ContainerInfo orphan : orphans) {
			ids.add(orphan.id());
			described.add(ContainerEngine.shortId(orphan.id()) + " (server '" + orphan.server() + "', owner "
					+ ((orphan.owner() != null) ? orphan.owner().id() : "?") + ")");
		}
		boolean removed = engine.remove(ids);
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		logger.warn("Removed " + orphans.size() + " orphaned MCP server "
				+ ((orphans.size() == 1) ? "container" : "containers") + " left by dead JVMs: " + described + "; "
				+ running.size() + " were running, " + killed + " needed a kill after SIGTERM"
				+ (removed ? "" : "; some could not be removed") + " (" + took.toMillis() + " ms)");
		return new Result(ids, running.size(), killed, took);
	}

	/**
	 * Return the containers of this host's owners that are gone.
	 * @param containers our containers
	 * @param alive tells whether an owner of this host lives
	 * @return the orphans
	 */
	static List<ContainerInfo> orphans(List<ContainerInfo> containers, Predicate<JvmOwner> alive) {
		List<ContainerInfo> orphans = new ArrayList<>();
		for (ContainerInfo container : containers) {
			JvmOwner owner = container.owner();
			if (owner != null && owner.isLocal() && !owner.equals(JvmOwner.current()) && !alive.test(owner)) {
				orphans.add(container);
			}
		}
		return orphans;
	}

	/**
	 * What a sweep did.
	 *
	 * @param removed the ids of the orphaned containers, all removed unless the engine
	 * failed
	 * @param terminated how many were running and got SIGTERM
	 * @param killed how many of those were still running after {@code terminate-timeout}
	 * @param took how long the sweep took
	 */
	public record Result(List<String> removed, int terminated, int killed, Duration took) {

	}

}

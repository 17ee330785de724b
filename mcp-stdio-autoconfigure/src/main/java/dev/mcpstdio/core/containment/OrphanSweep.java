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
import java.util.TreeSet;

import dev.mcpstdio.core.process.JvmOwner;
import dev.mcpstdio.core.process.Membership;
import dev.mcpstdio.core.process.ProcessMarkers;
import dev.mcpstdio.core.process.ProcessScanner;
import dev.mcpstdio.core.process.ProcessTable;
import dev.mcpstdio.core.process.ProcessTable.Proc;
import dev.mcpstdio.core.process.TreeTerminator;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Ends, at start-up, the marked server processes that dead JVMs left behind.
 *
 * @author mcp-stdio authors
 */
public final class OrphanSweep {

	private static final Log logger = LogFactory.getLog(OrphanSweep.class);

	private final ProcessScanner scanner;

	private final TreeTerminator terminator;

	private final Membership membership;

	private final @Nullable String application;

	/**
	 * Create a sweep.
	 * @param scanner reads the processes
	 * @param terminator ends them: over snapshots with every process's markers
	 * ({@link ProcessScanner#everyProcess()})
	 * @param membership the rule of what a marked process is
	 * @param application the application whose leftovers to end, or {@code null} for
	 * every application's of this user
	 */
	public OrphanSweep(ProcessScanner scanner, TreeTerminator terminator, Membership membership,
			@Nullable String application) {
		this.scanner = scanner;
		this.terminator = terminator;
		this.membership = membership;
		this.application = application;
	}

	/**
	 * Find and end the orphans: SIGTERM, a bounded wait, SIGKILL to what is left.
	 * @param terminateTimeout how long to wait after SIGTERM
	 * @return what was found and done
	 */
	public Result sweep(Duration terminateTimeout) {
		// Without /proc there are no markers to find orphans by
		List<Proc> orphans = findOrphans(this.scanner.scanAll());
		if (orphans.isEmpty()) {
			logger.debug("No orphaned MCP server processes found");
			return new Result(0, 0, 0, List.of());
		}
		TreeSet<Long> owners = new TreeSet<>();
		for (Proc orphan : orphans) {
			owners.add(orphan.markers().ownerPid());
		}
		// What is signalled is proven an orphan again, by the rule, before each signal
		TreeTerminator.Result ended = this.terminator.escalate(this::findOrphans, terminateTimeout,
				new TreeTerminator.Escalation() {
				});
		int killed = ended.killed();
		this.scanner.invalidate();
		List<Long> pids = new ArrayList<>();
		for (Proc orphan : orphans) {
			pids.add(orphan.pid());
		}
		logger.warn("Ended " + orphans.size() + " orphaned MCP server "
				+ ((orphans.size() == 1) ? "process" : "processes") + " left by dead JVMs (owner pids " + owners
				+ "; pids " + pids + "): " + (orphans.size() - killed) + " ended by SIGTERM, " + killed
				+ " needed SIGKILL" + ((ended.survivors() == 0) ? "" : ", " + ended.survivors() + " survived"));
		return new Result(orphans.size(), killed, ended.survivors(), pids);
	}

	/**
	 * Return the marked processes of this user and application whose owner JVM is gone.
	 * @param table the processes
	 * @return the orphans
	 */
	List<Proc> findOrphans(ProcessTable table) {
		List<Proc> orphans = new ArrayList<>();
		for (Proc proc : table.all()) {
			if (proc.pid() != ProcessMarkers.CURRENT_PID && this.membership.isMarked(proc, this::isOrphan)) {
				orphans.add(proc);
			}
		}
		return orphans;
	}

	private boolean isOrphan(ProcessMarkers markers) {
		if (this.application != null && !this.application.equals(markers.application())) {
			return false;
		}
		JvmOwner owner = markers.owner();
		return owner != null && !owner.isAlive();
	}

	/**
	 * What a sweep did.
	 *
	 * @param found orphans found
	 * @param killed orphans that needed SIGKILL
	 * @param survivors orphans still alive at the end
	 * @param pids the orphans' pids
	 */
	public record Result(int found, int killed, int survivors, List<Long> pids) {

	}

}

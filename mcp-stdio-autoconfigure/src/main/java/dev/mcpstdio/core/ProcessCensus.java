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

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.mcpstdio.core.process.Membership;
import dev.mcpstdio.core.process.ProcessMarkers;
import dev.mcpstdio.core.process.ProcessScanner;
import dev.mcpstdio.core.process.ProcessTable;
import dev.mcpstdio.core.process.ProcessTable.Proc;
import dev.mcpstdio.core.process.TreeStats;

/**
 * Counts the live processes of a server: every process carrying its markers from this
 * JVM, whichever start made it, so that a leaked earlier generation shows up, with those
 * in the current start's cgroup, and those of its container where the engine runs where
 * this host cannot see them.
 *
 * @author mcp-stdio authors
 */
public final class ProcessCensus {

	private final ProcessScanner scanner;

	/**
	 * The last count of each server, with the snapshot it was made from: a scrape reads
	 * processes and memory of every server, and each is counted once per snapshot.
	 */
	private final Map<String, Counted> lastCounts = new ConcurrentHashMap<>();

	private final Membership membership;

	ProcessCensus(ProcessScanner scanner, Membership membership) {
		this.scanner = scanner;
		this.membership = membership;
	}

	/**
	 * Count the live processes of one server and their resident memory.
	 * @param serverName the server's name
	 * @param current the server's current processes, possibly none
	 * @return the figures
	 */
	public TreeStats count(String serverName, List<StdioServerProcess> current) {
		ProcessTable table = this.scanner.recent();
		Counted last = this.lastCounts.get(serverName);
		if (last != null && last.table() == table && last.current().equals(current)) {
			return last.stats();
		}
		TreeStats stats = count(serverName, current, table);
		if (this.lastCounts.size() > 1024) {
			this.lastCounts.clear();
		}
		this.lastCounts.put(serverName, new Counted(table, List.copyOf(current), stats));
		return stats;
	}

	private TreeStats count(String serverName, List<StdioServerProcess> current, ProcessTable table) {
		Map<Long, Proc> found = new HashMap<>();
		for (StdioServerProcess process : current) {
			for (Proc proc : process.tree().members(table)) {
				found.put(proc.pid(), proc);
			}
			process.containment().addMembers(found, table);
		}
		for (Proc proc : table.all()) {
			if (proc.pid() != ProcessMarkers.CURRENT_PID && this.membership.isMarked(proc,
					(markers) -> markers.isOwnedByThisJvm() && serverName.equals(markers.server()))) {
				found.put(proc.pid(), proc);
			}
		}
		long memory = 0;
		for (Proc proc : found.values()) {
			memory += proc.rssBytes();
		}
		int processes = found.size();
		for (StdioServerProcess process : current) {
			// a container whose processes this host does not see (an engine in a VM)
			TreeStats container = process.containment().unseen();
			processes += container.liveProcesses();
			memory += container.memoryBytes();
		}
		return new TreeStats(processes, memory);
	}

	private record Counted(ProcessTable table, List<StdioServerProcess> current, TreeStats stats) {

	}

}

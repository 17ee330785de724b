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

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.mcpstdio.core.tree.Membership;
import dev.mcpstdio.core.tree.ProcessMarkers;
import dev.mcpstdio.core.tree.ProcessScanner;
import dev.mcpstdio.core.tree.ProcessTable;
import dev.mcpstdio.core.tree.ProcessTable.Proc;
import dev.mcpstdio.core.tree.ProcessTree;
import org.jspecify.annotations.Nullable;

/**
 * The count of a host's server processes and their memory, each server counted once per
 * snapshot of the machine's processes.
 *
 * @author mcp-stdio authors
 */
final class ProcessCensus {

	private final ProcessScanner scanner;

	private final Membership membership;

	/**
	 * The last count of each server, with the snapshot it was made from: a scrape reads
	 * processes and memory of every server, and each is counted once per snapshot.
	 */
	private final Map<String, Counted> lastCounts = new ConcurrentHashMap<>();

	ProcessCensus(ProcessScanner scanner, Membership membership) {
		this.scanner = scanner;
		this.membership = membership;
	}

	/**
	 * Count the live processes of a server and their resident memory: every process
	 * carrying its markers from this JVM, whichever start made it (so a leaked earlier
	 * one shows), those in its cgroups, and those of its containers.
	 * @param serverName the server's name, or {@code null} to count only the trees of the
	 * given processes (one instance of a per-user server)
	 * @param current the server's current processes, possibly none
	 * @return the figures
	 */
	ProcessTree.Stats count(@Nullable String serverName, List<StdioServerProcess> current) {
		ProcessTable table = this.scanner.recent();
		Counted last = (serverName != null) ? this.lastCounts.get(serverName) : null;
		if (last != null && last.table() == table && last.current().equals(current)) {
			return last.stats();
		}
		Map<Long, Proc> found = new HashMap<>();
		for (StdioServerProcess process : current) {
			for (Proc member : process.tree.members(table)) {
				found.put(member.pid(), member);
			}
			process.containment.addMembers(found, table);
		}
		for (Proc member : (serverName != null) ? table.all() : List.<Proc>of()) {
			if (member.pid() != ProcessMarkers.CURRENT_PID && this.membership.isMarked(member,
					(markers) -> markers.isOwnedByThisJvm() && serverName.equals(markers.server()))) {
				found.put(member.pid(), member);
			}
		}
		long memory = found.values().stream().mapToLong(Proc::rssBytes).sum();
		int processes = found.size();
		for (StdioServerProcess process : current) {
			// a container whose processes this host does not see (an engine in a VM)
			ProcessTree.Stats container = process.containment.unseen();
			processes += container.liveProcesses();
			memory += container.memoryBytes();
		}
		ProcessTree.Stats stats = new ProcessTree.Stats(processes, memory);
		if (this.lastCounts.size() > 1024) {
			this.lastCounts.clear();
		}
		if (serverName != null) {
			this.lastCounts.put(serverName, new Counted(table, List.copyOf(current), stats));
		}
		return stats;
	}

	private record Counted(ProcessTable table, List<StdioServerProcess> current, ProcessTree.Stats stats) {

	}

}

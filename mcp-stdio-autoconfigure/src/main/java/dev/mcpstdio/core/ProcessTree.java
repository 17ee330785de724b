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

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.mcpstdio.core.ProcessTable.Proc;

/**
 * Every process that one start of a server made: the root, its descendants, the members
 * of its process group and session (the root leads both when started through
 * {@code setsid}), and the processes that escaped both but still carry its instance
 * marker, with their descendants.
 *
 * @author mcp-stdio authors
 */
final class ProcessTree {

	private final long rootPid;

	private final String instance;

	private final boolean ownSession;

	private volatile long rootStartTime;

	private volatile boolean rootReaped;

	ProcessTree(long rootPid, String instance, boolean ownSession) {
		this.rootPid = rootPid;
		this.instance = instance;
		this.ownSession = ownSession;
	}

	long rootPid() {
		return this.rootPid;
	}

	/** Remember that the root is gone: its pid may now be reused by a stranger. */
	void rootReaped() {
		this.rootReaped = true;
	}

	/**
	 * Return the live members of the tree.
	 * @param table the snapshot to look in
	 * @return the members, the root first when alive
	 */
	List<Proc> members(ProcessTable table) {
		Map<Long, Proc> members = new LinkedHashMap<>();
		if (!this.rootReaped) {
			Proc root = table.get(this.rootPid);
			if (root != null) {
				if (this.rootStartTime == 0) {
					this.rootStartTime = root.startTime();
				}
				if (root.startTime() == this.rootStartTime) {
					members.put(root.pid(), root);
				}
			}
		}
		for (Proc proc : table.all()) {
			if (proc.pid() == ProcessMarkers.CURRENT_PID) {
				continue;
			}
			boolean inGroup = this.ownSession && (proc.pgid() == this.rootPid || proc.sid() == this.rootPid);
			boolean marked = proc.markers() != null && this.instance.equals(proc.markers().instance())
					&& proc.markers().ownerPid() == ProcessMarkers.CURRENT_PID;
			if (inGroup || marked) {
				members.putIfAbsent(proc.pid(), proc);
			}
		}
		List<Long> roots = new ArrayList<>(members.keySet());
		for (Proc child : table.descendantsOf(roots)) {
			if (child.pid() != ProcessMarkers.CURRENT_PID) {
				members.putIfAbsent(child.pid(), child);
			}
		}
		return new ArrayList<>(members.values());
	}

}

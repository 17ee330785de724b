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

package dev.mcpstdio.core.tree;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import dev.mcpstdio.core.tree.ProcessTable.Proc;

/**
 * The one rule of what proves that a live process belongs to a server start.
 *
 * @param uid the user whose marked processes may be members: the application's
 * @author mcp-stdio authors
 */
public record Membership(long uid) {

	// Asked by every path that ends or counts a server's processes (the orphan guard's
	// script repeats it, held to the same cases by a test). A member is the root, or in
	// the root's process group or session while the root is unreaped; or carries the
	// start's complete markers and runs as this rule's user; or descends from a member,
	// each child started no earlier than its parent.

	/** The user this JVM runs as, -1 when unknown. */
	public static final long CURRENT_UID = ProcReader.system().uid(ProcessMarkers.CURRENT_PID);

	/**
	 * Return the rule for this JVM's user.
	 * @return the rule
	 */
	public static Membership ofCurrentUser() {
		return new Membership(CURRENT_UID);
	}

	/**
	 * Return whether a process carries mcp-stdio markers that count as evidence: a server
	 * name, an owner pid, an instance handed out by that owner, a process of this rule's
	 * user, and markers that {@code accepts} takes.
	 * @param proc the process
	 * @param accepts which markers: those of one start, of one owner, ...
	 * @return whether the markers prove it
	 */
	public boolean isMarked(Proc proc, Predicate<ProcessMarkers> accepts) {
		ProcessMarkers markers = proc.markers();
		return markers != null && this.uid >= 0 && proc.uid() == this.uid && !markers.server().isEmpty()
				&& markers.hasOwnInstance() && accepts.test(markers);
	}

	/**
	 * Return the live members of the starts that began with the given roots. The server's
	 * cgroup, the last evidence, is not asked here: it is ended through the group itself.
	 * @param table the snapshot
	 * @param roots the roots, each told whether it was unreaped after the snapshot was
	 * read
	 * @param accepts the markers of these starts
	 * @return the members, roots first
	 */
	public List<Proc> members(ProcessTable table, Collection<Root> roots, Predicate<ProcessMarkers> accepts) {
		Map<Long, Proc> members = new LinkedHashMap<>();
		Set<Long> groups = new HashSet<>();
		for (Root root : roots) {
			// Unreaped, asked after the snapshot was read: until the reap its pid, and so
			// its group and session, can be nobody else's; afterwards a stranger can take
			// them, so they prove nothing
			if (!root.unreaped()) {
				continue;
			}
			Proc proc = table.get(root.pid());
			if (proc != null && (root.startTime() == 0 || proc.startTime() == root.startTime())) {
				members.put(proc.pid(), proc);
			}
			if (root.leadsGroup()) {
				groups.add(root.pid());
			}
		}
		for (Proc proc : table.all()) {
			if (proc.pid() != ProcessMarkers.CURRENT_PID
					&& (groups.contains(proc.pgid()) || groups.contains(proc.sid()) || isMarked(proc, accepts))) {
				members.putIfAbsent(proc.pid(), proc);
			}
		}
		table.descendantsOf(new ArrayList<>(members.values()))
			.forEach((child) -> members.putIfAbsent(child.pid(), child));
		// never this JVM, whichever way it was reached
		members.remove(ProcessMarkers.CURRENT_PID);
		return new ArrayList<>(members.values());
	}

	/**
	 * The process a server start began with.
	 *
	 * @param pid its pid
	 * @param startTime its start time, 0 when unknown
	 * @param leadsGroup whether it leads its own process group and session
	 * @param unreaped whether its pid was still its own, as a live process or a zombie,
	 * after the snapshot was read
	 */
	public record Root(long pid, long startTime, boolean leadsGroup, boolean unreaped) {

	}

}

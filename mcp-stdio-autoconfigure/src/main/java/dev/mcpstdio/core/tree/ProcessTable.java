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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * A snapshot of the live processes of this machine, zombies left out.
 *
 * @param processes the live processes by pid
 * @param takenAt the {@link System#nanoTime()} at which reading them began
 * @param generation the scanner's generation then
 * @param unread the user processes whose environment read empty, as one does while it
 * execs: their markers are not known yet
 * @author mcp-stdio authors
 */
public record ProcessTable(Map<Long, Proc> processes, long takenAt, long generation, List<Proc> unread) {

	/**
	 * Return whether a process that started at or after the given time showed an empty
	 * environment: only such a process can be a member caught in exec.
	 * @param since a start time
	 * @return whether one did
	 */
	boolean hasUnreadSince(long since) {
		return this.unread.stream().anyMatch((proc) -> proc.startTime() >= since);
	}

	/**
	 * Return this snapshot with some processes read again, for their environment.
	 * @param reread the processes read again, or {@code null} for those now gone
	 * @param unread those whose environment still read empty
	 * @return the new snapshot
	 */
	ProcessTable with(Map<Long, @Nullable Proc> reread, List<Proc> unread) {
		Map<Long, Proc> processes = new HashMap<>(this.processes);
		// a null (the process is gone) removes the pid
		reread.forEach((pid, proc) -> processes.compute(pid, (key, old) -> proc));
		return new ProcessTable(processes, this.takenAt, this.generation, unread);
	}

	public Collection<Proc> all() {
		return this.processes.values();
	}

	public @Nullable Proc get(long pid) {
		return this.processes.get(pid);
	}

	/**
	 * Return the processes whose parent chain leads to one of the given roots, the roots
	 * excluded. A child is only counted when it started no earlier than its parent, so a
	 * pid reused by a stranger whose parent pid matches by chance is not.
	 * @param roots the roots
	 * @return the descendants
	 */
	List<Proc> descendantsOf(Collection<Proc> roots) {
		Map<Long, List<Proc>> children = this.processes.values().stream().collect(Collectors.groupingBy(Proc::ppid));
		Set<Long> seen = roots.stream().map(Proc::pid).collect(Collectors.toCollection(HashSet::new));
		List<Proc> queue = new ArrayList<>(roots);
		for (int i = 0; i < queue.size() && i < 100_000; i++) {
			Proc parent = queue.get(i);
			for (Proc child : children.getOrDefault(parent.pid(), List.of())) {
				// add() is false for a process met before
				if (child.startTime() >= parent.startTime() && seen.add(child.pid())) {
					queue.add(child);
				}
			}
		}
		// after the roots, the queue holds exactly the descendants found
		return queue.subList(roots.size(), queue.size());
	}

	/**
	 * Where a process sits among the machine's processes: its id, its parent's, its
	 * process group and its session.
	 *
	 * @param pid its id
	 * @param ppid its parent's id
	 * @param pgid its process group, -1 when unknown
	 * @param sid its session, -1 when unknown
	 */
	public record Ids(long pid, long ppid, long pgid, long sid) {

	}

	/**
	 * One live process.
	 *
	 * @param ids its id, its parent's, its process group and its session
	 * @param state its state letter
	 * @param startTime when it started: clock ticks since boot from {@code /proc}, else
	 * epoch milliseconds; 0 when unknown
	 * @param rssBytes its resident memory
	 * @param markers its mcp-stdio markers, when it has them and they are readable
	 * @param uid the user it runs as, read only for a process with markers; -1 when
	 * unknown
	 */
	public record Proc(Ids ids, char state, long startTime, long rssBytes, @Nullable ProcessMarkers markers, long uid) {

		public long pid() {
			return this.ids.pid();
		}

		public long ppid() {
			return this.ids.ppid();
		}

		public long pgid() {
			return this.ids.pgid();
		}

		public long sid() {
			return this.ids.sid();
		}

	}

}

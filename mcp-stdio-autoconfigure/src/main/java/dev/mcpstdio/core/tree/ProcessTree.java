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

import java.util.List;
import java.util.function.BooleanSupplier;

import dev.mcpstdio.core.tree.ProcessTable.Proc;
import org.jspecify.annotations.Nullable;

/**
 * Every process that one start of a server made, as Membership proves it.
 *
 * @param rootPid the root's pid
 * @param rootStartTime the root's start time, 0 when unknown: no member started earlier
 * @param instance the instance marker of this start
 * @param ownSession whether the root leads its own session and group
 * @param rootUnreaped tells whether the root's pid is still the root's: true while it
 * runs and while it is an unreaped zombie
 * @param membership the rule
 * @author mcp-stdio authors
 */
public record ProcessTree(long rootPid, long rootStartTime, String instance, boolean ownSession,
		BooleanSupplier rootUnreaped, Membership membership) {

	/**
	 * Return the tree of a child of this JVM. Its root is unreaped while the JDK has not
	 * reaped it and its pid shows this JVM as parent and the root's start time: read
	 * after a snapshot, that proves its group and session were the root's while the
	 * snapshot was read.
	 * @param process the child
	 * @param startTime its start time, 0 when unknown
	 * @param instance the instance marker of this start
	 * @param ownSession whether the root leads its own session and group
	 * @param proc where its pid is read, or {@code null} without {@code /proc}
	 * @param membership the rule
	 * @return the tree
	 */
	public static ProcessTree ofChild(Process process, long startTime, String instance, boolean ownSession,
			@Nullable ProcReader proc, Membership membership) {
		// the JDK is asked last (startTimeOfChild): alive then, the pid was the root's
		// while it was read
		BooleanSupplier unreaped = (proc != null) ? () -> startTime != 0 && startTimeOfChild(process, proc) == startTime
				: process::isAlive;
		return new ProcessTree(process.pid(), startTime, instance, ownSession, unreaped, membership);
	}

	/**
	 * Return the start time of a child this JVM has just started.
	 * @param process the child
	 * @param proc where its pid is read
	 * @return its start time, or 0 when it was already reaped (its pid may be another's)
	 */
	public static long startTimeOfChild(Process process, ProcReader proc) {
		ProcReader.Stat stat = proc.stat(process.pid());
		// Read before the JDK is asked: alive afterwards, it was ours when read
		if (stat == null || stat.ids().ppid() != ProcessMarkers.CURRENT_PID || !process.isAlive()) {
			return 0;
		}
		return stat.startTime();
	}

	/**
	 * Return the live members of the tree. Whether the root is unreaped is asked after
	 * the snapshot was read, so its group and session count only when they were surely
	 * its.
	 * @param table the snapshot to look in
	 * @return the members, the root first when alive
	 */
	public List<Proc> members(ProcessTable table) {
		Membership.Root root = new Membership.Root(this.rootPid, this.rootStartTime, this.ownSession,
				this.rootUnreaped.getAsBoolean());
		return this.membership.members(table, List.of(root), (markers) -> this.instance.equals(markers.instance()));
	}

	/**
	 * Live processes and their resident memory (0 where the OS does not tell).
	 */
	public record Stats(int liveProcesses, long memoryBytes) {

	}

}

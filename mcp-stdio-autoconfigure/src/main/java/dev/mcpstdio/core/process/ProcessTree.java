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

package dev.mcpstdio.core.process;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import dev.mcpstdio.core.process.ProcessTable.Proc;

/**
 * Every process that one start of a server made: the root, its descendants, the members
 * of its process group and session (the root leads both when started through
 * {@code setsid}), and the processes that escaped both but still carry its instance
 * marker, with their descendants.
 * <p>
 * A pid is reused once its process is reaped, so group and session ids count as evidence
 * only while they are surely the root's: while the root is unreaped (alive or a zombie,
 * its pid is still taken), and afterwards only for processes that started between the
 * root's start and its end (a stranger that later took the pid started after it). A
 * descendant counts only if it started no earlier than its parent.
 *
 * @author mcp-stdio authors
 */
public final class ProcessTree {

	private final long rootPid;

	private final long rootStartTime;

	private final String instance;

	private final boolean ownSession;

	private final BooleanSupplier rootUnreaped;

	private final LongSupplier clock;

	/** When the root was first seen reaped, in start-time units; -1 before. */
	private volatile long rootEndTime = -1;

	/**
	 * Create the tree of one start.
	 * @param rootPid the root's pid
	 * @param rootStartTime the root's start time, 0 when unknown
	 * @param instance the instance marker of this start
	 * @param ownSession whether the root leads its own session and group
	 * @param rootUnreaped tells whether the root's pid is still the root's: true while it
	 * runs and while it is an unreaped zombie
	 * @param clock the current time in start-time units
	 */
	public ProcessTree(long rootPid, long rootStartTime, String instance, boolean ownSession,
			BooleanSupplier rootUnreaped, LongSupplier clock) {
		this.rootPid = rootPid;
		this.rootStartTime = rootStartTime;
		this.instance = instance;
		this.ownSession = ownSession;
		this.rootUnreaped = rootUnreaped;
		this.clock = clock;
	}

	long rootPid() {
		return this.rootPid;
	}

	/**
	 * Return the root's start time: no member started earlier.
	 * @return the start time, 0 when unknown
	 */
	long rootStartTime() {
		return this.rootStartTime;
	}

	String instance() {
		return this.instance;
	}

	/**
	 * Return whether the root has been reaped, remembering when it was first seen so.
	 * @return whether its pid may now belong to a stranger
	 */
	public boolean rootReaped() {
		if (this.rootEndTime >= 0) {
			return true;
		}
		if (this.rootUnreaped.getAsBoolean()) {
			return false;
		}
		synchronized (this) {
			if (this.rootEndTime < 0) {
				this.rootEndTime = this.clock.getAsLong();
			}
		}
		return true;
	}

	/**
	 * Return the live members of the tree.
	 * @param table the snapshot to look in
	 * @return the members, the root first when alive
	 */
	public List<Proc> members(ProcessTable table) {
		boolean reaped = rootReaped();
		long end = this.rootEndTime;
		Map<Long, Proc> members = new LinkedHashMap<>();
		if (!reaped) {
			Proc root = table.get(this.rootPid);
			if (root != null && (this.rootStartTime == 0 || root.startTime() == this.rootStartTime)) {
				members.put(root.pid(), root);
			}
		}
		for (Proc proc : table.all()) {
			if (proc.pid() != ProcessMarkers.CURRENT_PID && (isMarked(proc) || inGroupOrSession(proc, reaped, end))) {
				members.putIfAbsent(proc.pid(), proc);
			}
		}
		for (Proc child : table.descendantsOf(new ArrayList<>(members.values()))) {
			if (child.pid() != ProcessMarkers.CURRENT_PID) {
				members.putIfAbsent(child.pid(), child);
			}
		}
		return new ArrayList<>(members.values());
	}

	private boolean isMarked(Proc proc) {
		ProcessMarkers markers = proc.markers();
		// The instance names this JVM by pid and start time: it survives pid reuse
		return markers != null && this.instance.equals(markers.instance());
	}

	private boolean inGroupOrSession(Proc proc, boolean reaped, long end) {
		if (!this.ownSession || (proc.pgid() != this.rootPid && proc.sid() != this.rootPid)) {
			return false;
		}
		if (!reaped) {
			return true;
		}
		return this.rootStartTime > 0 && proc.startTime() >= this.rootStartTime && proc.startTime() <= end;
	}

}

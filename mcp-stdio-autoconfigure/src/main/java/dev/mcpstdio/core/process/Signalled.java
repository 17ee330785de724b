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
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import dev.mcpstdio.core.process.ProcessTable.Proc;
import org.jspecify.annotations.Nullable;

/**
 * The processes one escalation signalled, and the only way it signals: no process is
 * signalled on its pid and start time alone (start times have a resolution of 10 ms, and
 * a stranger born in the same tick as a member has both).
 * <p>
 * Where the kernel has pidfds, a process is first held by a pidfd, then proven a member
 * by a fresh read of it and its ancestors, then signalled through the pidfd: a pid reused
 * before the pidfd was opened fails the proof, one reused after leaves the pidfd to a
 * process that is gone, and the signal reaches nobody. The pidfds of the processes sent
 * SIGTERM are kept, so that SIGKILL later goes through them without a new proof, also to
 * a process that nothing proves a member any more (its root was reaped). Elsewhere a
 * process is proven a member afresh right before each signal, which leaves only the
 * moment between that read and the signal.
 *
 * @author mcp-stdio authors
 */
final class Signalled implements AutoCloseable {

	/** The most pidfds held at once: past it, a signal goes by pid after a proof. */
	static final int MAX_HELD = 1024;

	private final ProcessSource source;

	private final Function<ProcessTable, List<Proc>> members;

	/** The processes signalled through a pidfd, still held, by pid. */
	private final Map<Long, Held> held = new HashMap<>();

	/** The start times of the processes signalled by pid, by pid. */
	private final Map<Long, Long> byPid = new HashMap<>();

	Signalled(ProcessSource source, Function<ProcessTable, List<Proc>> members) {
		this.source = source;
		this.members = members;
	}

	/**
	 * Return the processes of a snapshot that are left to end: the members it shows, and
	 * the processes held by pidfd that have not ended, members or not. A held process
	 * that ended is let go: whatever has its pid now is another process.
	 * @param table a snapshot, read before this call
	 * @return the processes left
	 */
	List<Proc> left(ProcessTable table) {
		List<Proc> left = new ArrayList<>(this.members.apply(table));
		// Asked after the snapshot: not ended then, the pid was still its own when read
		for (Iterator<Held> it = this.held.values().iterator(); it.hasNext();) {
			Held held = it.next();
			if (held.pidfd().exited()) {
				held.pidfd().close();
				it.remove();
			}
		}
		for (Held held : this.held.values()) {
			if (!contains(left, held.proc().pid())) {
				Proc now = table.get(held.proc().pid());
				left.add((now != null) ? now : held.proc());
			}
		}
		return left;
	}

	/**
	 * Return whether a process of a snapshot was signalled already.
	 * @param proc the process
	 * @return whether it was
	 */
	boolean contains(Proc proc) {
		Long start = this.byPid.get(proc.pid());
		return this.held.containsKey(proc.pid()) || (start != null && start == proc.startTime());
	}

	/**
	 * Signal processes of a snapshot, each only as this class allows.
	 * @param procs the processes, as a snapshot saw them
	 * @param kill SIGKILL, else SIGTERM
	 * @param escalation learns of each signal just before it is sent
	 * @return how many were signalled
	 */
	int signal(List<Proc> procs, boolean kill, TreeTerminator.Escalation escalation) {
		int count = 0;
		for (Proc proc : procs) {
			if (proc.pid() != ProcessMarkers.CURRENT_PID && signal(proc, kill, escalation)) {
				count++;
			}
		}
		return count;
	}

	private boolean signal(Proc proc, boolean kill, TreeTerminator.Escalation escalation) {
		long pid = proc.pid();
		Held held = this.held.get(pid);
		if (held != null) {
			// the pidfd of a process proven a member when it was opened
			escalation.signalling(pid, kill);
			return held.pidfd().signal(kill);
		}
		Pidfd pidfd = (this.held.size() < MAX_HELD) ? this.source.hold(pid) : null;
		if (pidfd != null) {
			// opened first, proven after: the proof is of the held process unless that
			// one is gone, and then the signal reaches nobody
			Proc proven = proven(pid);
			if (proven == null) {
				pidfd.close();
				return false;
			}
			escalation.signalling(pid, kill);
			if (!pidfd.signal(kill)) {
				pidfd.close();
				return false;
			}
			this.held.put(pid, new Held(pidfd, proven));
			return true;
		}
		Proc proven = proven(pid);
		if (proven == null) {
			return false;
		}
		escalation.signalling(pid, kill);
		if (this.source.signal(proven, kill)) {
			this.byPid.put(pid, proven.startTime());
			return true;
		}
		return false;
	}

	/**
	 * Return the process that has a pid now if a fresh read of it and its ancestors
	 * proves it a member, by the same rule as the snapshots.
	 */
	private @Nullable Proc proven(long pid) {
		ProcessTable lineage = this.source.lineage(pid);
		Proc now = lineage.get(pid);
		if (now == null) {
			return null;
		}
		for (Proc member : this.members.apply(lineage)) {
			if (member.pid() == pid && member.startTime() == now.startTime()) {
				return now;
			}
		}
		return null;
	}

	private static boolean contains(List<Proc> procs, long pid) {
		for (Proc proc : procs) {
			if (proc.pid() == pid) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Return how many processes are held by pidfd now.
	 * @return the count
	 */
	int held() {
		return this.held.size();
	}

	/** Close every pidfd still held. */
	@Override
	public void close() {
		for (Held held : this.held.values()) {
			held.pidfd().close();
		}
		this.held.clear();
	}

	private record Held(Pidfd pidfd, Proc proc) {

	}

}

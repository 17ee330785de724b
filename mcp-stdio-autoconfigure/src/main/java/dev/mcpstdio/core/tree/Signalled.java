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
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import dev.mcpstdio.core.tree.ProcessTable.Proc;
import org.jspecify.annotations.Nullable;

/**
 * The processes one escalation of a {@link TreeTerminator} signalled, and the only way it
 * signals: through a pidfd held since the process was proven a member, else by pid right
 * after a fresh proof.
 *
 * @author mcp-stdio authors
 */
final class Signalled implements AutoCloseable {

	/** The most pidfds held at once: past it, a signal goes by pid after a proof. */
	private static final int MAX_HELD = 1024;

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
		// Asked after the snapshot: not ended then, the pid was still its own when
		// read
		for (Iterator<Held> it = this.held.values().iterator(); it.hasNext();) {
			Held held = it.next();
			if (held.pidfd().exited()) {
				held.pidfd().close();
				it.remove();
			}
			else if (left.stream().noneMatch((proc) -> proc.pid() == held.proc().pid())) {
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
		// a pidfd is opened first, the proof made after: it is of the held process
		// unless that one is gone, and then the signal reaches nobody. Without one,
		// the signal goes by pid right after the proof
		Pidfds.Pidfd pidfd = (this.held.size() < MAX_HELD) ? this.source.hold(pid) : null;
		Proc proven = proven(pid);
		if (proven == null) {
			if (pidfd != null) {
				pidfd.close();
			}
			return false;
		}
		escalation.signalling(pid, kill);
		if (pidfd == null) {
			boolean sent = this.source.signal(proven, kill);
			if (sent) {
				this.byPid.put(pid, proven.startTime());
			}
			return sent;
		}
		if (!pidfd.signal(kill)) {
			pidfd.close();
			return false;
		}
		this.held.put(pid, new Held(pidfd, proven));
		return true;
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
		return this.members.apply(lineage)
			.stream()
			.anyMatch((member) -> member.pid() == pid && member.startTime() == now.startTime()) ? now : null;
	}

	/** Close every pidfd still held. */
	@Override
	public void close() {
		this.held.values().forEach((held) -> held.pidfd().close());
		this.held.clear();
	}

	private record Held(Pidfds.Pidfd pidfd, Proc proc) {

	}

}

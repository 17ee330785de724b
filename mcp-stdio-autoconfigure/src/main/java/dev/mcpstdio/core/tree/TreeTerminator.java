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

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.tree.ProcessTable.Proc;
import dev.mcpstdio.core.support.Waits;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Step 4 of a stop: SIGTERM to a tree, a bounded wait, then SIGKILL.
 *
 * @author mcp-stdio authors
 */
public final class TreeTerminator {

	// The tree is read again each time, so that processes forked meanwhile are caught
	// too. Each signal goes as Signalled allows: through a pidfd held since the process
	// was proven a member, else right after a fresh proof.

	private static final Log logger = LogFactory.getLog(TreeTerminator.class);

	private static final long POLL_MIN_NANOS = 2_000_000L;

	private static final long POLL_MAX_NANOS = 25_000_000L;

	/**
	 * How long an environment that read empty is read again: a process shows none only
	 * for the moment of an exec, even on a busy machine.
	 */
	private static final long EXEC_WINDOW_NANOS = 250_000_000L;

	private final ProcessSource source;

	private final Duration killWait;

	/**
	 * Create a terminator.
	 * @param source reads and signals the processes
	 * @param killWait how long SIGKILLed processes may take to vanish before it stops
	 * waiting for them
	 */
	public TreeTerminator(ProcessSource source, Duration killWait) {
		this.source = source;
		this.killWait = killWait;
	}

	/**
	 * End every live process of a tree.
	 * @param serverName the server, for logs
	 * @param tree the tree
	 * @param terminateTimeout how long to wait after SIGTERM
	 * @param why what led here, for the log line
	 * @param freshSince the {@link System#nanoTime()} after which the first snapshot must
	 * have begun
	 * @param rootSignal receives the signal sent to the root, if it was alive
	 * @return what was done
	 */
	public Result terminate(String serverName, ProcessTree tree, Duration terminateTimeout, String why, long freshSince,
			Consumer<Boolean> rootSignal) {
		return escalate(tree::members, tree.rootStartTime(), freshSince, terminateTimeout, new Escalation() {

			@Override
			public void signalling(long pid, boolean kill) {
				if (pid == tree.rootPid()) {
					rootSignal.accept(kill);
				}
			}

			@Override
			public void terminated(int count) {
				logger.warn(McpStdioException.describe(serverName) + " " + why + "; sent SIGTERM to " + count
						+ ((count == 1) ? " process" : " processes"));
			}

			@Override
			public void killed(int count) {
				logger.warn(McpStdioException.describe(serverName) + " did not exit within "
						+ Waits.format(terminateTimeout) + " after SIGTERM; sent SIGKILL to " + count
						+ ((count == 1) ? " process" : " processes"));
			}

			@Override
			public void survived(List<Proc> survivors) {
				logger.error(McpStdioException.describe(serverName) + ": " + survivors.size()
						+ " processes survived SIGKILL (pids "
						+ survivors.stream().map((proc) -> Long.toString(proc.pid())).collect(Collectors.joining(", "))
						+ ")");
			}

		});
	}

	/**
	 * SIGTERM every process that {@code members} finds, wait up to
	 * {@code terminateTimeout} for them to end, then SIGKILL what is left, reading the
	 * processes again each time so that those forked meanwhile are caught too.
	 * @param members finds the live processes to end in a snapshot
	 * @param since the earliest start time of a member, 0 when unknown: a process that
	 * started before cannot be one, even while its environment is unreadable
	 * @param terminateTimeout how long to wait after SIGTERM
	 * @param escalation learns what is done
	 * @return what was done
	 */
	public Result escalate(Function<ProcessTable, List<Proc>> members, long since, Duration terminateTimeout,
			Escalation escalation) {
		return escalate(members, since, System.nanoTime(), terminateTimeout, escalation);
	}

	private Result escalate(Function<ProcessTable, List<Proc>> members, long since, long freshSince,
			Duration terminateTimeout, Escalation escalation) {
		long deadline = System.nanoTime() + Math.min(terminateTimeout.toNanos(), EXEC_WINDOW_NANOS);
		ProcessTable table = this.source.scan(freshSince);
		List<Proc> found = members.apply(table);
		long pause = POLL_MIN_NANOS;
		while (found.isEmpty()) {
			// A process caught in exec shows no environment, so no marker: read those
			// that could be members again, for as long as an exec may take. One that
			// stays empty for longer has no environment at all, so no marker either
			long now = System.nanoTime();
			if (!table.hasUnreadSince(since) || now >= deadline) {
				return new Result(0, 0, 0);
			}
			Waits.sleepNanos(Math.min(pause, deadline - now));
			pause = Math.min(pause * 2, POLL_MAX_NANOS);
			table = this.source.reread(table);
			found = members.apply(table);
		}
		try (Signalled signalled = new Signalled(this.source, members)) {
			int termed = signalled.signal(found, false, escalation);
			escalation.terminated(termed);
			deadline = System.nanoTime() + terminateTimeout.toNanos();
			List<Proc> left = waitForEnd(signalled, deadline, false, escalation);
			if (left.isEmpty()) {
				return new Result(termed, 0, 0);
			}
			int killed = signalled.signal(left, true, escalation);
			escalation.killed(killed);
			List<Proc> survivors = waitForEnd(signalled, System.nanoTime() + this.killWait.toNanos(), true, escalation);
			if (!survivors.isEmpty()) {
				escalation.survived(survivors);
			}
			return new Result(termed, killed, survivors.size());
		}
	}

	private List<Proc> waitForEnd(Signalled signalled, long deadline, boolean kill, Escalation escalation) {
		List<Proc> left = new ArrayList<>();
		Waits.until(() -> {
			left.clear();
			left.addAll(signalled.left(this.source.scan(System.nanoTime())));
			// A process forked after the last signal gets the same treatment
			signalled.signal(left.stream().filter((proc) -> !signalled.contains(proc)).toList(), kill, escalation);
			return left.isEmpty();
		}, deadline, POLL_MIN_NANOS, POLL_MAX_NANOS);
		return left;
	}

	/** Learns what an escalation does, for logs and the classification of an exit. */
	public interface Escalation {

		/**
		 * Called just before a process is signalled.
		 * @param pid the process
		 * @param kill SIGKILL, else SIGTERM
		 */
		default void signalling(long pid, boolean kill) {
		}

		default void terminated(int count) {
		}

		default void killed(int count) {
		}

		default void survived(List<Proc> survivors) {
		}

	}

	/**
	 * What a termination did.
	 *
	 * @param terminated processes sent SIGTERM
	 * @param killed processes sent SIGKILL
	 * @param survivors processes still alive at the end
	 */
	public record Result(int terminated, int killed, int survivors) {

	}

	/** The processes one escalation signalled, and the only way it signals. */
	static final class Signalled implements AutoCloseable {

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
		 * Return the processes of a snapshot that are left to end: the members it shows,
		 * and the processes held by pidfd that have not ended, members or not. A held
		 * process that ended is let go: whatever has its pid now is another process.
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

}

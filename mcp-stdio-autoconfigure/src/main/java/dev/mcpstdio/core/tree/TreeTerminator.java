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
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.tree.ProcessTable.Proc;
import dev.mcpstdio.core.support.Waits;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

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
			List<Proc> left = waitForEnd(signalled, since, deadline, false, escalation);
			if (left.isEmpty()) {
				return new Result(termed, 0, 0);
			}
			int killed = signalled.signal(left, true, escalation);
			escalation.killed(killed);
			List<Proc> survivors = waitForEnd(signalled, since, System.nanoTime() + this.killWait.toNanos(), true,
					escalation);
			if (!survivors.isEmpty()) {
				escalation.survived(survivors);
			}
			return new Result(termed, killed, survivors.size());
		}
	}

	private List<Proc> waitForEnd(Signalled signalled, long since, long deadline, boolean kill, Escalation escalation) {
		List<Proc> left = new ArrayList<>();
		// while none is left but some may be caught in exec: that read, and since when
		ProcessTable[] unread = { null };
		long[] unreadSince = { 0 };
		Waits.until(() -> {
			left.clear();
			ProcessTable table = (unread[0] != null) ? this.source.reread(unread[0])
					: this.source.scan(System.nanoTime());
			left.addAll(signalled.left(table));
			// A process forked after the last signal gets the same treatment
			signalled.signal(left.stream().filter((proc) -> !signalled.contains(proc)).toList(), kill, escalation);
			if (!left.isEmpty() || !table.hasUnreadSince(since)) {
				unread[0] = null;
				return left.isEmpty();
			}
			// None is left that shows its markers, but one forked as the others were
			// signalled may be caught in exec, which hides them: read those again (only
			// them: the others were read), for as long as an exec may take
			long now = System.nanoTime();
			if (unread[0] == null) {
				unreadSince[0] = now;
			}
			unread[0] = table;
			return now - unreadSince[0] >= EXEC_WINDOW_NANOS;
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

}

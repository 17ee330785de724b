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

package dev.mcpstdio.core.containment;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.tree.ProcessMarkers;
import dev.mcpstdio.core.tree.ProcessTable.Proc;
import dev.mcpstdio.core.tree.ProcessTable;
import dev.mcpstdio.core.tree.TreeTerminator;
import dev.mcpstdio.core.support.Waits;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The cgroup (v2) of one server start, which nothing it starts can leave.
 *
 * @author mcp-stdio authors
 */
final class Cgroup implements Containment.Part {

	private static final Log logger = LogFactory.getLog(Cgroup.class);

	/**
	 * The shell that joins the group named by its {@code $0} and then executes its
	 * arguments in place (the pid stays the server's). When the group cannot be joined it
	 * exits with 125 and the shell's message on stderr, running nothing.
	 */
	static final List<String> ENTRY = List.of("/bin/sh", "-c",
			"echo $$ > \"$0/cgroup.procs\" || exit 125; exec \"$@\"");

	/** How long killed processes may take to leave the group. */
	static final Duration KILL_WAIT = Duration.ofSeconds(2);

	/** How long a freeze may take before the group is signalled unfrozen. */
	private static final long FREEZE_WAIT_NANOS = 200_000_000L;

	private final String server;

	private final Path path;

	private final boolean hasKill;

	private volatile boolean released;

	Cgroup(String server, Path path, boolean hasKill) {
		this.server = server;
		this.path = path;
		this.hasKill = hasKill;
	}

	Path path() {
		return this.path;
	}

	/**
	 * Return a command that joins this group and then executes the given one in place.
	 * After {@code setsid}, which also executes in place, the process started is still
	 * the server's pid, session and process group, and in its group before its first
	 * instruction.
	 */
	@Override
	public List<String> wrap(List<String> command) {
		List<String> wrapped = new ArrayList<>(ENTRY);
		wrapped.add(this.path.toString());
		wrapped.addAll(command);
		return wrapped;
	}

	/**
	 * End what is left in the group once {@code inner} ended the tree (and the
	 * container): processes that left the tree and cleared their markers. After the tree,
	 * so that the signal the root gets, and its exit's cause, stay the tree's.
	 */
	@Override
	public void end(Duration terminateTimeout, Runnable inner) {
		try {
			inner.run();
		}
		finally {
			// the usual case, an empty group, costs one read: no freeze, no signal
			if (!this.released && !isEmpty()) {
				TreeTerminator.Result result = terminate(terminateTimeout);
				if (result.terminated() > 0 || result.survivors() > 0) {
					logger
						.warn(McpStdioException.describe(this.server) + " left " + result.terminated()
								+ ((result.terminated() == 1) ? " process" : " processes")
								+ " in its cgroup outside its process tree and markers; sent SIGTERM"
								+ ((result.killed() > 0) ? ", then killed " + result.killed() + " after "
										+ Waits.format(terminateTimeout) : "")
								+ ((result.survivors() > 0) ? "; " + result.survivors() + " survived" : ""));
				}
			}
		}
	}

	@Override
	public void addMembers(Map<Long, Proc> found, ProcessTable table) {
		if (this.released) {
			return;
		}
		for (long pid : pids()) {
			Proc proc = table.get(pid);
			if (proc != null && pid != ProcessMarkers.CURRENT_PID) {
				found.putIfAbsent(pid, proc);
			}
		}
	}

	@Override
	public void release() {
		this.released = true;
		remove();
	}

	/**
	 * Return the pids of every process in the group and its descendant groups.
	 * @return the pids, empty once the group is empty or gone
	 */
	List<Long> pids() {
		return CgroupTree.pids(this.path);
	}

	/**
	 * Return whether no process is left in the group or below it: one small read of
	 * {@code cgroup.events}, where the kernel keeps exactly that.
	 * @return whether it is empty (or gone)
	 */
	boolean isEmpty() {
		try {
			String events = Files.readString(this.path.resolve("cgroup.events"), StandardCharsets.US_ASCII);
			if (events.contains("populated 0")) {
				return true;
			}
			if (events.contains("populated 1")) {
				return false;
			}
		}
		catch (IOException | RuntimeException ex) {
			if (!Files.isDirectory(this.path)) {
				return true;
			}
		}
		return pids().isEmpty();
	}

	/**
	 * End every process in the group: SIGTERM, a wait of up to {@code terminateTimeout}
	 * for the group to empty, then the kill ({@code cgroup.kill}, else SIGKILL to each
	 * process until none is left), bounded. The group is frozen while its processes are
	 * read and signalled, so that none can exit and leave its pid to another process.
	 * @param terminateTimeout how long to wait after SIGTERM
	 * @return what was done
	 */
	TreeTerminator.Result terminate(Duration terminateTimeout) {
		int termed = signalFrozen(false);
		if (awaitEmpty(terminateTimeout)) {
			return new TreeTerminator.Result(termed, 0, 0);
		}
		int killed = pids().size();
		if (this.hasKill && write("cgroup.kill", "1")) {
			awaitEmpty(KILL_WAIT);
		}
		else {
			Waits.until(() -> signalFrozen(true) == 0, System.nanoTime() + KILL_WAIT.toNanos(), 10_000_000L,
					10_000_000L);
		}
		return new TreeTerminator.Result(termed, killed, pids().size());
	}

	private int signalFrozen(boolean kill) {
		boolean frozen = freeze();
		try {
			List<ProcessHandle> handles = pids().stream()
				.filter((pid) -> pid != ProcessMarkers.CURRENT_PID)
				.flatMap((pid) -> ProcessHandle.of(pid).stream())
				.toList();
			handles.forEach(kill ? ProcessHandle::destroyForcibly : ProcessHandle::destroy);
			return handles.size();
		}
		finally {
			if (frozen) {
				write("cgroup.freeze", "0");
			}
		}
	}

	/** Freeze the group and wait, bounded, until it is frozen. */
	private boolean freeze() {
		if (!write("cgroup.freeze", "1")) {
			return false;
		}
		// still unfrozen at the deadline, it is signalled so: no worse than without a
		// freezer
		Waits.until(this::isFrozen, System.nanoTime() + FREEZE_WAIT_NANOS, 1_000_000L, 1_000_000L);
		return true;
	}

	private boolean isFrozen() {
		try {
			return Files.readString(this.path.resolve("cgroup.events")).contains("frozen 1");
		}
		catch (IOException | RuntimeException ex) {
			// unreadable: waiting longer tells nothing
			return true;
		}
	}

	private boolean write(String file, String value) {
		try {
			Files.writeString(this.path.resolve(file), value);
			return true;
		}
		catch (IOException | RuntimeException ex) {
			return false;
		}
	}

	/**
	 * Wait, bounded, until no process is left in the group.
	 * @param within how long to wait
	 * @return whether it is empty
	 */
	boolean awaitEmpty(Duration within) {
		return Waits.until(this::isEmpty, System.nanoTime() + within.toNanos(), 2_000_000L, 25_000_000L);
	}

	/**
	 * Remove the group and its descendant groups once empty, waiting a little for
	 * processes just killed to leave.
	 * @return whether it is gone
	 */
	boolean awaitEmptyAndRemove() {
		awaitEmpty(KILL_WAIT);
		CgroupTree.remove(this.path);
		return !Files.exists(this.path);
	}

	/**
	 * Remove a server's group once it is empty, and this JVM's group, its parent, when it
	 * was the last.
	 * @return whether the server's group is gone
	 */
	boolean remove() {
		// outside the lock: other servers may start and stop meanwhile; only the JVM's
		// group must not go while a server group is being created in it
		boolean removed = awaitEmptyAndRemove();
		if (removed) {
			synchronized (Cgroups.JVM_GROUP_LOCK) {
				Cgroups.removeQuietly(this.path.getParent());
			}
		}
		return removed;
	}

	@Override
	public String toString() {
		return this.path.toString();
	}

}

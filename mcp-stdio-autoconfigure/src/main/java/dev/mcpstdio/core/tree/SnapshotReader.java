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

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.mcpstdio.core.tree.ProcessTable.Proc;
import org.jspecify.annotations.Nullable;

/**
 * Reads snapshots of the live processes: through a {@link ProcReader}, with the markers
 * of each process that can carry one of this JVM, else through {@link ProcessHandle}.
 *
 * @author mcp-stdio authors
 */
final class SnapshotReader {

	/** The kernel's thread creator: its children are kernel threads. */
	private static final long KTHREADD = 2;

	/** The most ancestors a proof reads: more is a loop, not a process tree. */
	private static final int MAX_LINEAGE = 4096;

	private final Platform platform;

	private final ProcReader proc;

	/**
	 * Only processes started at or after this may carry a marker of this JVM: a process
	 * gets its markers by inheriting them from one this JVM started.
	 */
	private final long markerHorizon;

	private final long pageSize;

	/** The markers read of each process, by pid. */
	private final MarkerCache markers;

	SnapshotReader(Platform platform, ProcReader proc, long markerHorizon) {
		this.platform = platform;
		this.proc = proc;
		this.markers = new MarkerCache(proc);
		this.pageSize = platform.hasProcFileSystem() ? proc.pageSize() : 4096;
		this.markerHorizon = markerHorizon;
	}

	/**
	 * Return a reader of the same machine whose snapshots have the markers of every
	 * process started at or after the given time, with a cache of its own.
	 * @param markerHorizon the earliest start time of a process with markers
	 * @return the reader
	 */
	SnapshotReader withHorizon(long markerHorizon) {
		return new SnapshotReader(this.platform, this.proc, markerHorizon);
	}

	/**
	 * Read the environments that read empty in a snapshot again, as after an exec.
	 * @param table the snapshot
	 * @return the snapshot with those processes read again
	 */
	ProcessTable reread(ProcessTable table) {
		if (table.unread().isEmpty() || !this.platform.hasProcFileSystem()) {
			return table;
		}
		ProcCursor cursor = this.proc.cursor();
		Map<Long, @Nullable Proc> reread = new HashMap<>();
		List<Proc> unread = new ArrayList<>();
		for (Proc old : table.unread()) {
			List<Proc> stillUnread = new ArrayList<>(1);
			Proc now = readProc(old.pid(), cursor, 0, true, stillUnread);
			boolean same = now != null && now.startTime() == old.startTime();
			reread.put(old.pid(), same ? now : null);
			if (same) {
				unread.addAll(stillUnread);
			}
		}
		return table.with(reread, unread);
	}

	/**
	 * Read a snapshot of the live processes.
	 * @param gen the scanner's generation now
	 * @return the snapshot
	 */
	ProcessTable read(long gen) {
		long takenAt = System.nanoTime();
		if (!this.platform.hasProcFileSystem()) {
			return scanWithProcessHandles(gen, takenAt);
		}
		Map<Long, Proc> processes = new HashMap<>();
		List<Proc> unread = new ArrayList<>();
		ProcCursor cursor = this.proc.cursor();
		try {
			for (long pid : this.proc.pids()) {
				Proc read = readProc(pid, cursor, this.markerHorizon, true, unread);
				if (read != null) {
					processes.put(pid, read);
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			return scanWithProcessHandles(gen, takenAt);
		}
		this.markers.prune(processes.keySet());
		return new ProcessTable(processes, takenAt, gen, unread);
	}

	private ProcessTable scanWithProcessHandles(long gen, long takenAt) {
		Map<Long, Proc> processes = new HashMap<>();
		ProcessHandle.allProcesses().forEach((handle) -> processes.put(handle.pid(), procOf(handle)));
		return new ProcessTable(processes, takenAt, gen, List.of());
	}

	/**
	 * Read one process: {@code null} when it is gone or a zombie, else the process, also
	 * added to {@code unread} when its environment read empty (as during an exec).
	 */
	private @Nullable Proc readProc(long pid, ProcCursor cursor, long horizon, boolean cached, List<Proc> unread) {
		if (!cursor.readStat(pid)) {
			return null;
		}
		ProcReader.Stat stat = cursor.stat(pid);
		if (stat.isZombie()) {
			return null;
		}
		long environAt = cursor.environAt();
		ProcessMarkers markers = null;
		long uid = -1;
		boolean empty = false;
		boolean kernelThread = stat.ids().ppid() == KTHREADD || pid == KTHREADD;
		// Kernel threads have no environment, and a process older than the horizon no
		// marker of ours
		if (!kernelThread && stat.startTime() >= horizon) {
			MarkerCache.Read read = this.markers.read(pid, stat.startTime(), environAt, cursor, cached);
			if (read != null) {
				markers = read.markers();
				uid = read.uid();
			}
			else if (!stat.isExiting()) {
				// A user process shows no environment while it execs; one that is
				// exiting shows none either (its memory is gone), but it execs nothing
				// any more: looking at it again would only delay a stop
				empty = true;
			}
		}
		Proc proc = new Proc(stat.ids(), stat.state(), stat.startTime(), stat.rssPages() * this.pageSize, markers, uid);
		if (empty) {
			unread.add(proc);
		}
		return proc;
	}

	/**
	 * Read one process and its ancestors afresh: {@code stat}, markers and user, nothing
	 * from a cache, whenever they started.
	 * @param pid the process
	 * @param gen the scanner's generation now
	 * @return the process and its parent chain, empty when it is gone or a zombie
	 */
	ProcessTable lineage(long pid, long gen) {
		long takenAt = System.nanoTime();
		Map<Long, Proc> processes = new HashMap<>();
		List<Proc> unread = new ArrayList<>();
		if (!this.platform.hasProcFileSystem()) {
			Optional<ProcessHandle> next = ProcessHandle.of(pid);
			while (next.isPresent() && !processes.containsKey(next.get().pid()) && processes.size() < MAX_LINEAGE) {
				processes.put(next.get().pid(), procOf(next.get()));
				next = next.get().parent();
			}
			return new ProcessTable(processes, takenAt, gen, unread);
		}
		ProcCursor cursor = this.proc.cursor();
		long next = pid;
		while (next > 0 && !processes.containsKey(next) && processes.size() < MAX_LINEAGE) {
			Proc read = readProc(next, cursor, 0, false, unread);
			if (read == null) {
				break;
			}
			processes.put(next, read);
			next = read.ppid();
		}
		return new ProcessTable(processes, takenAt, gen, unread);
	}

	/**
	 * A process as {@link ProcessHandle} tells it: no group, session, memory or markers.
	 */
	private static Proc procOf(ProcessHandle handle) {
		return new Proc(new ProcessTable.Ids(handle.pid(), handle.parent().map(ProcessHandle::pid).orElse(0L), -1, -1),
				'R', ProcessSignals.startMillis(handle), 0, null, -1);
	}

}

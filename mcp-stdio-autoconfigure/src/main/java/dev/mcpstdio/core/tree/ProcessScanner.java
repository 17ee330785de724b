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
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import dev.mcpstdio.core.tree.ProcessTable.Proc;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Takes snapshots of the live processes and signals only what a snapshot saw.
 *
 * @author mcp-stdio authors
 */
public final class ProcessScanner implements ProcessSource {

	// Through a ProcReader (with the markers of each process that can carry one of this
	// JVM), else through ProcessHandle; snapshots are shared among callers that ask at
	// the same time.

	/** The longest a snapshot is reused by {@link #recent()}. */
	private static final long MAX_AGE_NANOS = 100_000_000L;

	/**
	 * The longest a caller waits for a read another caller is making before it reads
	 * itself: a read of {@code /proc} can hang on a process stuck in the kernel.
	 */
	private static final long MAX_SHARED_WAIT_NANOS = 2_000_000_000L;

	/** The kernel's thread creator: its children are kernel threads. */
	private static final long KTHREADD = 2;

	/** The most ancestors a proof reads: more is a loop, not a process tree. */
	private static final int MAX_LINEAGE = 4096;

	private static final Log logger = LogFactory.getLog(ProcessScanner.class);

	private static final @Nullable Pidfds SYSTEM_PIDFDS = loadPidfds();

	private final Platform platform;

	private final ProcReader proc;

	/**
	 * Markers of a process never change while it runs one program: they are cached by
	 * pid, start time and where its environment lies in memory (which an exec changes).
	 * Only definite answers are cached: an empty or failed read (as during {@code exec}
	 * or exit) is read again next time.
	 */
	private final Map<Long, CachedMarkers> markerCache = new ConcurrentHashMap<>();

	/**
	 * Only processes started at or after this may carry a marker of this JVM: a process
	 * gets its markers by inheriting them from one this JVM started.
	 */
	private final long markerHorizon;

	private final long pageSize;

	/** How signals reach a process: through pidfds, or {@code null} by pid. */
	private final @Nullable Pidfds pidfds;

	private final Object flight = new Object();

	/** The newest snapshot; guarded by {@link #flight} for writes. */
	private volatile @Nullable ProcessTable latest;

	/** Whether a shared read is under way; guarded by {@link #flight}. */
	private boolean scanning;

	private volatile long generation;

	/**
	 * Create a scanner that signals through pidfds where the kernel has them.
	 * @param platform what the OS offers
	 * @param proc the reader of {@code /proc}, used where the platform has it
	 */
	public ProcessScanner(Platform platform, ProcReader proc) {
		this(platform, proc, true);
	}

	/**
	 * Create a scanner.
	 * @param platform what the OS offers
	 * @param proc the reader of {@code /proc}, used where the platform has it
	 * @param pidfds whether to hold processes by pidfd where the kernel has them:
	 * {@code false} forces the way without them, for tests
	 */
	ProcessScanner(Platform platform, ProcReader proc, boolean pidfds) {
		this(platform, proc, pidfds ? SYSTEM_PIDFDS : null, Math.max(0, ProcessMarkers.CURRENT_START));
	}

	private ProcessScanner(Platform platform, ProcReader proc, @Nullable Pidfds pidfds, long markerHorizon) {
		this.platform = platform;
		this.proc = proc;
		this.pidfds = pidfds;
		this.pageSize = platform.hasProcFileSystem() ? proc.pageSize() : 4096;
		this.markerHorizon = markerHorizon;
	}

	/**
	 * Return a scanner of the same machine whose snapshots have the markers of every
	 * process, whenever it started: the leftovers of earlier JVMs too, for the start-up
	 * sweep.
	 * @return a scanner that shares no snapshot with this one
	 */
	public ProcessScanner everyProcess() {
		return new ProcessScanner(this.platform, this.proc, this.pidfds, 0);
	}

	/**
	 * Return a snapshot no older than a few milliseconds and taken after the last
	 * {@link #invalidate()}.
	 * @return a snapshot
	 */
	public ProcessTable recent() {
		ProcessTable table = this.latest;
		if (table != null && table.generation() == this.generation
				&& System.nanoTime() - table.takenAt() < MAX_AGE_NANOS) {
			return table;
		}
		return scan();
	}

	/** Forget the shared snapshot: a process of ours has just ended or started. */
	public void invalidate() {
		this.generation++;
	}

	/**
	 * Return a snapshot whose reading began after this call: the caller's own, or one
	 * that another caller began meanwhile and that serves both.
	 * @return a fresh snapshot
	 */
	public ProcessTable scan() {
		return scan(System.nanoTime());
	}

	/**
	 * Return a snapshot whose reading began at or after {@code freshSince}: one under way
	 * or taken already, else a new one.
	 * @param freshSince a {@link System#nanoTime()} not later than now
	 * @return a snapshot fresh enough
	 */
	@Override
	public ProcessTable scan(long freshSince) {
		long asked = System.nanoTime();
		boolean shared = false;
		boolean interrupted = false;
		synchronized (this.flight) {
			while (true) {
				ProcessTable table = this.latest;
				if (table != null && table.takenAt() - freshSince >= 0) {
					return table;
				}
				if (!this.scanning) {
					this.scanning = true;
					shared = true;
					break;
				}
				// A read is under way: wait for it to end, then take it or share the next
				long left = MAX_SHARED_WAIT_NANOS - (System.nanoTime() - asked);
				if (left <= 0 || interrupted) {
					break;
				}
				try {
					this.flight.wait(Math.max(1, left / 1_000_000L));
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
		}
		ProcessTable table = null;
		try {
			table = read(this.markerHorizon);
			return table;
		}
		finally {
			published(table, shared);
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/** Keep a snapshot read if it is the newest, and wake the callers that wait. */
	private void published(@Nullable ProcessTable table, boolean shared) {
		synchronized (this.flight) {
			if (shared) {
				this.scanning = false;
			}
			ProcessTable newest = this.latest;
			if (table != null && (newest == null || table.takenAt() - newest.takenAt() > 0)) {
				this.latest = table;
			}
			this.flight.notifyAll();
		}
	}

	/**
	 * Read the environments that read empty in a snapshot again, as after an exec.
	 * @param table the snapshot
	 * @return the snapshot with those processes read again
	 */
	@Override
	public ProcessTable reread(ProcessTable table) {
		if (table.unread().isEmpty() || !this.platform.hasProcFileSystem()) {
			return table;
		}
		ProcReader.Cursor cursor = this.proc.cursor();
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

	private ProcessTable read(long horizon) {
		long gen = this.generation;
		long takenAt = System.nanoTime();
		if (!this.platform.hasProcFileSystem()) {
			return scanWithProcessHandles(gen, takenAt);
		}
		Map<Long, Proc> processes = new HashMap<>();
		List<Proc> unread = new ArrayList<>();
		ProcReader.Cursor cursor = this.proc.cursor();
		try {
			for (long pid : this.proc.pids()) {
				Proc read = readProc(pid, cursor, horizon, true, unread);
				if (read != null) {
					processes.put(pid, read);
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			return scanWithProcessHandles(gen, takenAt);
		}
		if (this.markerCache.size() > 4 * processes.size() + 1024) {
			this.markerCache.keySet().removeIf((pid) -> !processes.containsKey(pid));
		}
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
	private @Nullable Proc readProc(long pid, ProcReader.Cursor cursor, long horizon, boolean cached,
			List<Proc> unread) {
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
		boolean kernelThread = stat.ppid() == KTHREADD || pid == KTHREADD;
		// Kernel threads have no environment, and a process older than the horizon no
		// marker of ours
		if (!kernelThread && stat.startTime() >= horizon) {
			CachedMarkers read = markers(pid, stat.startTime(), environAt, cursor, cached);
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
	 * Return the markers of a process (with its user when it has any), or {@code null}
	 * when its environment was empty, as while it execs. Only a read that found an
	 * environment is cached: an empty or failed one is tried again next time. A proof
	 * ({@code useCache} false) reads afresh and caches nothing: a stranger with the pid,
	 * start time and environment address of a member would get its markers from a cache.
	 */
	private @Nullable CachedMarkers markers(long pid, long startTime, long environAt, ProcReader.Cursor cursor,
			boolean useCache) {
		CachedMarkers cached = useCache ? this.markerCache.get(pid) : null;
		if (cached != null && cached.startTime() == startTime && cached.environAt() == environAt) {
			return cached;
		}
		int length = cursor.readEnviron(pid);
		if (length < 0) {
			// Another user's, or gone: it has no markers we could act on
			return new CachedMarkers(startTime, environAt, null, -1);
		}
		if (length == 0) {
			return null;
		}
		ProcessMarkers markers = ProcessMarkers.parse(cursor.buffer(), length);
		// Only markers are evidence that needs the user: read it only then
		cached = new CachedMarkers(startTime, environAt, markers, (markers != null) ? this.proc.uid(pid) : -1);
		if (useCache) {
			this.markerCache.put(pid, cached);
		}
		return cached;
	}

	/**
	 * Read one process and its ancestors afresh: {@code stat}, markers and user, nothing
	 * from a cache, whenever they started.
	 * @param pid the process
	 * @return the process and its parent chain, empty when it is gone or a zombie
	 */
	@Override
	public ProcessTable lineage(long pid) {
		long takenAt = System.nanoTime();
		Map<Long, Proc> processes = new HashMap<>();
		List<Proc> unread = new ArrayList<>();
		if (!this.platform.hasProcFileSystem()) {
			Optional<ProcessHandle> next = ProcessHandle.of(pid);
			while (next.isPresent() && !processes.containsKey(next.get().pid()) && processes.size() < MAX_LINEAGE) {
				processes.put(next.get().pid(), procOf(next.get()));
				next = next.get().parent();
			}
			return new ProcessTable(processes, takenAt, this.generation, unread);
		}
		ProcReader.Cursor cursor = this.proc.cursor();
		long next = pid;
		while (next > 0 && !processes.containsKey(next) && processes.size() < MAX_LINEAGE) {
			Proc read = readProc(next, cursor, 0, false, unread);
			if (read == null) {
				break;
			}
			processes.put(next, read);
			next = read.ppid();
		}
		return new ProcessTable(processes, takenAt, this.generation, unread);
	}

	/**
	 * Open a pidfd of the process that has a pid now, where the kernel has them.
	 * @param pid the process
	 * @return the pidfd, or {@code null} when the process is gone, pidfds are not used,
	 * or none could be opened (out of descriptors): then a signal goes by pid
	 */
	@Override
	public Pidfds.@Nullable Pidfd hold(long pid) {
		Pidfds pidfds = this.pidfds;
		if (pidfds == null) {
			return null;
		}
		try {
			return pidfds.open(pid);
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	/**
	 * Send SIGTERM or SIGKILL to a process, but only while it is the process read: a pid
	 * reused since is left alone. Start time, parent, group and session are checked after
	 * the handle is taken, and the JDK refuses to signal a handle whose process has
	 * changed.
	 */
	@Override
	public boolean signal(Proc proc, boolean kill) {
		Optional<ProcessHandle> handle = ProcessHandle.of(proc.pid());
		if (handle.isEmpty() || (proc.startTime() != 0 && !isStill(proc))) {
			return false;
		}
		return kill ? handle.get().destroyForcibly() : handle.get().destroy();
	}

	/**
	 * Return whether a pid still shows the process read: its start time, and where
	 * {@code /proc} tells them its parent, group and session, which a stranger born in
	 * the same clock tick does not share.
	 */
	private boolean isStill(Proc proc) {
		if (!this.platform.hasProcFileSystem() || proc.pgid() < 0) {
			return startTimeOf(proc.pid()) == proc.startTime();
		}
		ProcReader.Stat stat = this.proc.stat(proc.pid());
		return stat != null && !stat.isZombie() && stat.startTime() == proc.startTime() && stat.ppid() == proc.ppid()
				&& stat.pgid() == proc.pgid() && stat.sid() == proc.sid();
	}

	/**
	 * Return when a live process started: clock ticks since boot from {@code /proc}, else
	 * epoch milliseconds.
	 * @param pid the process
	 * @return its start time, 0 when unknown, -1 when it is gone or a zombie
	 */
	public long startTimeOf(long pid) {
		if (this.platform.hasProcFileSystem()) {
			ProcReader.Stat stat = this.proc.stat(pid);
			return (stat == null || stat.isZombie()) ? -1 : stat.startTime();
		}
		return ProcessHandle.of(pid).map(ProcessScanner::startMillis).orElse(-1L);
	}

	/**
	 * A process as {@link ProcessHandle} tells it: no group, session, memory or markers.
	 */
	private static Proc procOf(ProcessHandle handle) {
		return new Proc(new ProcessTable.Ids(handle.pid(), handle.parent().map(ProcessHandle::pid).orElse(0L), -1, -1),
				'R', startMillis(handle), 0, null, -1);
	}

	private static long startMillis(ProcessHandle handle) {
		return handle.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
	}

	/**
	 * Return how this JVM signals, decided once with one line that says which way signals
	 * go: through pidfds, or {@code null} by pid.
	 */
	private static @Nullable Pidfds loadPidfds() {
		String way = "Signals to MCP server processes go by pid, each right after a fresh proof that the process "
				+ "is the server's";
		if (!System.getProperty("os.name", "").startsWith("Linux")) {
			if (logger.isDebugEnabled()) {
				logger.debug(way + " (no pidfds on " + System.getProperty("os.name") + ")");
			}
			return null;
		}
		try {
			Pidfds pidfds = Pidfds.load();
			if (logger.isDebugEnabled()) {
				logger.debug("Signals to MCP server processes go through pidfds, each opened while the process was "
						+ "proven the server's");
			}
			return pidfds;
		}
		catch (RuntimeException | LinkageError ex) {
			// JNA absent or unable to load its library, a kernel before 5.3 (ENOSYS),
			// a seccomp filter (EPERM)
			logger.info(way + ": pidfds are not available (" + ex + ")");
			return null;
		}
	}

	private record CachedMarkers(long startTime, long environAt, @Nullable ProcessMarkers markers, long uid) {

	}

}

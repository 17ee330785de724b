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

import java.io.FileInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import dev.mcpstdio.core.process.ProcessTable.Proc;
import org.jspecify.annotations.Nullable;

/**
 * Reads the live processes of this machine, from {@code /proc} where the platform has it
 * (with the mcp-stdio markers of each process this user may read), else through
 * {@link ProcessHandle}; and signals one of them only while it is still the process that
 * was read.
 * <p>
 * Why this class is longer than the others: the {@code /proc} reader, its fallback
 * through {@link ProcessHandle}, the shared snapshot and the checked signal are one
 * source of truth about processes for the tree, the stops and the census.
 * <p>
 * Reading {@code /proc} costs a few milliseconds of CPU, so it is shared: callers that
 * need a fresh snapshot at the same time (the stops of many servers together) share one
 * read that began after each of them asked, and a census takes one a few milliseconds
 * old. Environments are read only of processes that can carry a marker this JVM handed
 * out (those started since it started), once per process: a process's markers never
 * change while it runs one program.
 *
 * @author mcp-stdio authors
 */
public final class ProcessScanner implements ProcessSource {

	private static final String PROC = "/proc/";

	/** The longest a snapshot is reused by {@link #recent()}. */
	private static final long MAX_AGE_NANOS = 100_000_000L;

	/**
	 * The longest a caller waits for a read another caller is making before it reads
	 * itself: a read of {@code /proc} can hang on a process stuck in the kernel.
	 */
	private static final long MAX_SHARED_WAIT_NANOS = 2_000_000_000L;

	/** Clock ticks per second of the start times in {@code /proc/PID/stat}. */
	private static final int USER_HZ = 100;

	/**
	 * The flag of {@code stat} that a process in {@code exit()} carries (kernel's
	 * sched.h).
	 */
	private static final long PF_EXITING = 0x4;

	/** The kernel's thread creator: its children are kernel threads. */
	private static final long KTHREADD = 2;

	/** An environment larger than this is not one we started. */
	private static final int MAX_ENVIRON_BYTES = 256 * 1024;

	private final Platform platform;

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

	private final Object flight = new Object();

	/** The newest snapshot; guarded by {@link #flight} for writes. */
	private volatile @Nullable ProcessTable latest;

	/** Whether a shared read is under way; guarded by {@link #flight}. */
	private boolean scanning;

	private volatile long generation;

	private final AtomicLong reads = new AtomicLong();

	public ProcessScanner(Platform platform) {
		this.platform = platform;
		this.pageSize = platform.hasProcFileSystem() ? pageSize() : 4096;
		this.markerHorizon = Math.max(0, ProcessMarkers.CURRENT_START);
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
	@Override
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
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Read every process with its markers, whenever it started: the markers left by other
	 * JVMs too.
	 * @return a fresh snapshot
	 */
	public ProcessTable scanAll() {
		return read(0);
	}

	/**
	 * Read the environments that read empty in a snapshot again, as after an exec.
	 * @param table the snapshot
	 * @return the snapshot with those processes read again
	 */
	@Override
	public ProcessTable reread(ProcessTable table) {
		if (table.unread() == 0 || !this.platform.hasProcFileSystem()) {
			return table;
		}
		Reader reader = new Reader();
		Map<Long, @Nullable Proc> reread = new HashMap<>();
		List<Proc> unread = new ArrayList<>();
		for (Proc proc : table.unreadProcesses()) {
			Proc now = readProc(proc.pid(), reader, 0);
			if (now == null || now.startTime() != proc.startTime() || isZombie(now.state())) {
				reread.put(proc.pid(), null);
				continue;
			}
			reread.put(proc.pid(), now);
			if (reader.unread) {
				unread.add(now);
			}
		}
		return table.with(reread, unread);
	}

	/**
	 * Return how many times this scanner has read every process.
	 * @return the count
	 */
	long reads() {
		return this.reads.get();
	}

	private ProcessTable read(long horizon) {
		this.reads.incrementAndGet();
		long gen = this.generation;
		long takenAt = System.nanoTime();
		if (!this.platform.hasProcFileSystem()) {
			return scanWithProcessHandles(gen, takenAt);
		}
		Map<Long, Proc> processes = new HashMap<>();
		List<Proc> unread = new ArrayList<>();
		Reader reader = new Reader();
		try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of(PROC))) {
			for (Path dir : dirs) {
				String name = dir.getFileName().toString();
				if (name.isEmpty() || !Character.isDigit(name.charAt(0))) {
					continue;
				}
				Proc proc = readProc(Long.parseLong(name), reader, horizon);
				if (proc != null && !isZombie(proc.state())) {
					processes.put(proc.pid(), proc);
					if (reader.unread) {
						unread.add(proc);
					}
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
		ProcessHandle.allProcesses().forEach((handle) -> {
			long ppid = handle.parent().map(ProcessHandle::pid).orElse(0L);
			processes.put(handle.pid(), new Proc(handle.pid(), ppid, -1, -1, 'R', startMillis(handle), 0, null));
		});
		return new ProcessTable(processes, takenAt, gen, List.of());
	}

	/**
	 * Read one process; {@link Reader#unread} tells afterwards whether its environment
	 * read empty.
	 */
	private @Nullable Proc readProc(long pid, Reader reader, long horizon) {
		reader.unread = false;
		String dir = PROC + pid + "/";
		if (!reader.readStat(dir)) {
			return null;
		}
		// Every field before the environment is read into the same buffer
		char state = reader.state;
		long ppid = reader.field(1);
		long pgid = reader.field(2);
		long sid = reader.field(3);
		long startTime = reader.field(19);
		long rssBytes = reader.field(21) * this.pageSize;
		boolean exiting = isExiting(reader.field(6));
		long environAt = reader.environAt();
		ProcessMarkers markers = null;
		boolean kernelThread = ppid == KTHREADD || pid == KTHREADD;
		// Kernel threads have no environment, and a process older than the horizon no
		// marker of ours
		if (!isZombie(state) && !kernelThread && startTime >= horizon) {
			CachedMarkers read = markers(pid, startTime, environAt, dir, reader);
			if (read != null) {
				markers = read.markers();
			}
			else if (!exiting) {
				// A user process shows no environment while it execs; one that is
				// exiting shows none either (its memory is gone), but it execs nothing
				// any more: looking at it again would only delay a stop
				reader.unread = true;
			}
		}
		return new Proc(pid, ppid, pgid, sid, state, startTime, rssBytes, markers);
	}

	/**
	 * Return whether the flags of a process's {@code stat} say that it is exiting
	 * ({@code PF_EXITING}).
	 * @param flags the flags field
	 * @return whether it is exiting
	 */
	static boolean isExiting(long flags) {
		return (flags & PF_EXITING) != 0;
	}

	private static boolean isZombie(char state) {
		return state == 'Z' || state == 'X';
	}

	/**
	 * Return the markers of a process, or {@code null} when its environment was empty, as
	 * while it execs. Only a read that found an environment is cached: an empty or failed
	 * one is tried again next time.
	 */
	private @Nullable CachedMarkers markers(long pid, long startTime, long environAt, String dir, Reader reader) {
		CachedMarkers cached = this.markerCache.get(pid);
		if (cached != null && cached.startTime() == startTime && cached.environAt() == environAt) {
			return cached;
		}
		int length = reader.readEnviron(dir);
		if (length < 0) {
			// Another user's, or gone: it has no markers we could act on
			return new CachedMarkers(startTime, environAt, null);
		}
		if (length == 0) {
			return null;
		}
		cached = new CachedMarkers(startTime, environAt, parseMarkers(reader.buffer, length));
		this.markerCache.put(pid, cached);
		return cached;
	}

	/**
	 * Read the markers from a process's initial environment, if this user may read it.
	 * @param environ the {@code /proc/PID/environ} file
	 * @return the markers or {@code null}
	 */
	public static @Nullable ProcessMarkers readMarkers(Path environ) {
		Reader reader = new Reader();
		int length = reader.read(environ.toString(), MAX_ENVIRON_BYTES);
		return (length >= 0) ? parseMarkers(reader.buffer, length) : null;
	}

	private static @Nullable ProcessMarkers parseMarkers(byte[] bytes, int length) {
		String server = null;
		String owner = null;
		String instance = null;
		int start = 0;
		for (int i = 0; i <= length; i++) {
			if (i == length || bytes[i] == 0) {
				if (i - start > 11 && bytes[start] == 'M' && bytes[start + 1] == 'C') {
					String entry = new String(bytes, start, i - start, StandardCharsets.UTF_8);
					if (entry.startsWith(ProcessMarkers.SERVER + "=")) {
						server = entry.substring(ProcessMarkers.SERVER.length() + 1);
					}
					else if (entry.startsWith(ProcessMarkers.OWNER_PID + "=")) {
						owner = entry.substring(ProcessMarkers.OWNER_PID.length() + 1);
					}
					else if (entry.startsWith(ProcessMarkers.INSTANCE + "=")) {
						instance = entry.substring(ProcessMarkers.INSTANCE.length() + 1);
					}
				}
				start = i + 1;
			}
		}
		if (server == null || owner == null) {
			return null;
		}
		try {
			return new ProcessMarkers(server, Long.parseLong(owner.trim()), instance);
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	/**
	 * Send SIGTERM or SIGKILL to a process, but only while it is the process of the
	 * snapshot: a pid reused since is left alone. The start time is checked after the
	 * handle is taken, and the JDK refuses to signal a handle whose process has changed.
	 */
	@Override
	public boolean signal(Proc proc, boolean kill) {
		Optional<ProcessHandle> handle = ProcessHandle.of(proc.pid());
		if (handle.isEmpty()) {
			return false;
		}
		if (proc.startTime() != 0 && startTimeOf(this.platform, proc.pid()) != proc.startTime()) {
			return false;
		}
		return kill ? handle.get().destroyForcibly() : handle.get().destroy();
	}

	/**
	 * Return when a live process started: clock ticks since boot from {@code /proc}, else
	 * epoch milliseconds.
	 * @param platform the platform
	 * @param pid the process
	 * @return its start time, 0 when unknown, -1 when it is gone or a zombie
	 */
	public static long startTimeOf(Platform platform, long pid) {
		if (platform.hasProcFileSystem()) {
			Reader reader = new Reader();
			if (!reader.readStat(PROC + pid + "/") || isZombie(reader.state)) {
				return -1;
			}
			return reader.field(19);
		}
		return ProcessHandle.of(pid).map(ProcessScanner::startMillis).orElse(-1L);
	}

	/**
	 * Return the current time in the units of {@link #startTimeOf(Platform, long)}.
	 * @return clock ticks since boot from {@code /proc/uptime}, else epoch milliseconds;
	 * 0 when unknown
	 */
	public long now() {
		if (this.platform.hasProcFileSystem()) {
			try {
				String uptime = Files.readString(Path.of(PROC, "uptime"), StandardCharsets.ISO_8859_1);
				double seconds = Double.parseDouble(uptime.substring(0, uptime.indexOf(' ')));
				// Start times are in USER_HZ ticks, 100 per second on every architecture
				// Linux runs on today; round up so that a process that started in this
				// tick counts as started before now
				return (long) Math.ceil(seconds * USER_HZ);
			}
			catch (IOException | RuntimeException ex) {
				// Unknown: no process can be shown to have started before it
				return 0;
			}
		}
		return System.currentTimeMillis();
	}

	private static long startMillis(ProcessHandle handle) {
		return handle.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
	}

	private static long pageSize() {
		// The kernel does not export the page size in /proc; compare two views of RSS
		try {
			String statm = Files.readString(Path.of(PROC, "self/statm"));
			long residentPages = Long.parseLong(statm.split(" ")[1]);
			for (String line : Files.readAllLines(Path.of(PROC, "self/status"))) {
				if (line.startsWith("VmRSS:")) {
					long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
					long ratio = kb * 1024 / Math.max(1, residentPages);
					return Long.highestOneBit(Math.max(4096, ratio + ratio / 4));
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			// fall through
		}
		return 4096;
	}

	private record CachedMarkers(long startTime, long environAt, @Nullable ProcessMarkers markers) {

	}

	/**
	 * Reads {@code /proc} files of one scan into one buffer, and the fields of a
	 * {@code stat} line without making strings of them: a scan reads hundreds.
	 */
	private static final class Reader {

		/**
		 * Fields of {@code stat} after the command name, the state being field 0: up to
		 * {@code env_end}, which kernels before 3.5 do not show.
		 */
		private static final int FIELDS = 49;

		/** Fields every kernel shows: up to the resident set size. */
		private static final int REQUIRED_FIELDS = 22;

		private byte[] buffer = new byte[1024];

		private final int[] starts = new int[FIELDS];

		private int length;

		private int fields;

		private char state;

		boolean unread;

		/**
		 * Read {@code /proc/PID/stat}.
		 * @return whether it could be read and had every field
		 */
		boolean readStat(String dir) {
			this.length = read(dir + "stat", 4096);
			// The command name may hold anything, ')' too: the fields follow the last
			int close = -1;
			for (int i = this.length - 1; i >= 0; i--) {
				if (this.buffer[i] == ')') {
					close = i;
					break;
				}
			}
			if (close < 0 || close + 2 >= this.length) {
				return false;
			}
			int field = 0;
			this.starts[field++] = close + 2;
			for (int i = close + 2; i < this.length && field < FIELDS; i++) {
				if (this.buffer[i] == ' ') {
					this.starts[field++] = i + 1;
				}
			}
			if (field < REQUIRED_FIELDS) {
				return false;
			}
			this.fields = field;
			this.state = (char) this.buffer[close + 2];
			return true;
		}

		/**
		 * Return where the environment of the process read last lies in its memory: an
		 * exec moves it.
		 * @return a value that an exec changes, 0 when unknown
		 */
		long environAt() {
			return 31 * field(47) + field(48);
		}

		/**
		 * Return the numeric field {@code index} of the last stat line read.
		 * @return its value, 0 when the line does not have it
		 */
		long field(int index) {
			if (index >= this.fields) {
				return 0;
			}
			long value = 0;
			boolean negative = false;
			for (int i = this.starts[index]; i < this.length; i++) {
				byte b = this.buffer[i];
				if (b == '-') {
					negative = true;
				}
				else if (b >= '0' && b <= '9') {
					value = value * 10 + (b - '0');
				}
				else {
					break;
				}
			}
			return negative ? -value : value;
		}

		/**
		 * Read {@code /proc/PID/environ}.
		 * @return its length, -1 when it could not be read
		 */
		int readEnviron(String dir) {
			return read(dir + "environ", MAX_ENVIRON_BYTES);
		}

		/**
		 * Read a file into the buffer, at most {@code max} bytes.
		 * @return the bytes read, -1 when the file could not be read
		 */
		int read(String file, int max) {
			try (FileInputStream in = new FileInputStream(file)) {
				int total = 0;
				while (total < max) {
					if (total == this.buffer.length) {
						this.buffer = Arrays.copyOf(this.buffer, Math.min(max, total * 2));
					}
					int read = in.read(this.buffer, total, Math.min(this.buffer.length, max) - total);
					if (read < 0) {
						return total;
					}
					total += read;
				}
				return total;
			}
			catch (IOException | RuntimeException ex) {
				return -1;
			}
		}

	}

}

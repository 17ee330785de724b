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

package dev.mcpstdio.core;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import dev.mcpstdio.core.ProcessTable.Proc;
import org.jspecify.annotations.Nullable;

/**
 * Reads the live processes of this machine, from {@code /proc} where the platform has it
 * (with the mcp-stdio markers of each process this user may read), else through
 * {@link ProcessHandle}; and signals one of them only while it is still the process that
 * was read. Snapshots are shared for a few milliseconds so that many servers counted
 * together cost one scan.
 *
 * @author mcp-stdio authors
 */
final class ProcessScanner implements ProcessSource {

	private static final Path PROC = Path.of("/proc");

	/** The longest a shared snapshot is reused. */
	private static final long MAX_AGE_NANOS = 100_000_000L;

	/** Clock ticks per second of the start times in {@code /proc/PID/stat}. */
	private static final int USER_HZ = 100;

	/** The kernel's thread creator: its children are kernel threads. */
	private static final long KTHREADD = 2;

	/** An environment larger than this is not one we started. */
	private static final int MAX_ENVIRON_BYTES = 256 * 1024;

	private final Platform platform;

	/**
	 * Markers of a process never change while it runs one program: they are cached by pid
	 * and start time. Only definite answers are cached: an empty or failed read (as
	 * during {@code exec} or exit) is read again next time.
	 */
	private final Map<Long, CachedMarkers> markerCache = new ConcurrentHashMap<>();

	private final long pageSize;

	private volatile @Nullable ProcessTable shared;

	private volatile long generation;

	ProcessScanner(Platform platform) {
		this.platform = platform;
		this.pageSize = platform.hasProcFileSystem() ? pageSize() : 4096;
	}

	/**
	 * Return a snapshot no older than a few milliseconds and taken after the last
	 * {@link #invalidate()}.
	 * @return a snapshot
	 */
	ProcessTable recent() {
		ProcessTable table = this.shared;
		if (table != null && table.generation() == this.generation
				&& System.nanoTime() - table.takenAt() < MAX_AGE_NANOS) {
			return table;
		}
		table = scan();
		this.shared = table;
		return table;
	}

	/** Forget the shared snapshot: a process of ours has just ended or started. */
	void invalidate() {
		this.generation++;
	}

	@Override
	public ProcessTable scan() {
		long gen = this.generation;
		if (!this.platform.hasProcFileSystem()) {
			return scanWithProcessHandles(gen);
		}
		Map<Long, Proc> processes = new HashMap<>();
		int[] unread = new int[1];
		try (DirectoryStream<Path> dirs = Files.newDirectoryStream(PROC)) {
			for (Path dir : dirs) {
				String name = dir.getFileName().toString();
				if (name.isEmpty() || !Character.isDigit(name.charAt(0))) {
					continue;
				}
				Proc proc = readProc(Long.parseLong(name), dir, unread);
				if (proc != null && !isZombie(proc.state())) {
					processes.put(proc.pid(), proc);
				}
			}
		}
		catch (IOException ex) {
			return scanWithProcessHandles(gen);
		}
		if (this.markerCache.size() > 4 * processes.size() + 1024) {
			this.markerCache.keySet().removeIf((pid) -> !processes.containsKey(pid));
		}
		return new ProcessTable(processes, System.nanoTime(), gen, unread[0]);
	}

	private ProcessTable scanWithProcessHandles(long gen) {
		Map<Long, Proc> processes = new HashMap<>();
		ProcessHandle.allProcesses().forEach((handle) -> {
			long ppid = handle.parent().map(ProcessHandle::pid).orElse(0L);
			processes.put(handle.pid(), new Proc(handle.pid(), ppid, -1, -1, 'R', startMillis(handle), 0, null));
		});
		return new ProcessTable(processes, System.nanoTime(), gen, 0);
	}

	private @Nullable Proc readProc(long pid, Path dir, int[] unread) {
		String[] fields = statFields(dir);
		if (fields == null) {
			return null;
		}
		char state = fields[0].charAt(0);
		long ppid = Long.parseLong(fields[1]);
		long pgid = Long.parseLong(fields[2]);
		long sid = Long.parseLong(fields[3]);
		long startTime = Long.parseLong(fields[19]);
		long rssBytes = Long.parseLong(fields[21]) * this.pageSize;
		ProcessMarkers markers = null;
		if (!isZombie(state)) {
			CachedMarkers read = markers(pid, startTime, dir);
			if (read != null) {
				markers = read.markers();
			}
			else if (ppid != KTHREADD && pid != KTHREADD) {
				// Kernel threads have no environment; a user process shows none while
				// it execs
				unread[0]++;
			}
		}
		return new Proc(pid, ppid, pgid, sid, state, startTime, rssBytes, markers);
	}

	/**
	 * Read the fields of {@code /proc/PID/stat} after the command name: the state first.
	 */
	private static String @Nullable [] statFields(Path dir) {
		String stat;
		try {
			stat = Files.readString(dir.resolve("stat"), StandardCharsets.ISO_8859_1);
		}
		catch (IOException | RuntimeException ex) {
			return null;
		}
		int close = stat.lastIndexOf(')');
		if (close < 0 || close + 2 >= stat.length()) {
			return null;
		}
		String[] fields = stat.substring(close + 2).split(" ");
		return (fields.length < 22) ? null : fields;
	}

	private static boolean isZombie(char state) {
		return state == 'Z' || state == 'X';
	}

	/**
	 * Return the markers of a process, or {@code null} when its environment was empty, as
	 * while it execs. Only a read that found an environment is cached: an empty or failed
	 * one is tried again next time.
	 */
	private @Nullable CachedMarkers markers(long pid, long startTime, Path dir) {
		CachedMarkers cached = this.markerCache.get(pid);
		if (cached != null && cached.startTime() == startTime) {
			return cached;
		}
		byte[] environ = readEnviron(dir.resolve("environ"));
		if (environ == null) {
			// Another user's, or gone: it has no markers we could act on
			return new CachedMarkers(startTime, null);
		}
		if (environ.length == 0) {
			return null;
		}
		cached = new CachedMarkers(startTime, parseMarkers(environ));
		this.markerCache.put(pid, cached);
		return cached;
	}

	private static byte @Nullable [] readEnviron(Path environ) {
		try (InputStream in = Files.newInputStream(environ)) {
			return in.readNBytes(MAX_ENVIRON_BYTES);
		}
		catch (IOException | RuntimeException ex) {
			return null;
		}
	}

	/**
	 * Read the markers from a process's initial environment, if this user may read it.
	 * @param environ the {@code /proc/PID/environ} file
	 * @return the markers or {@code null}
	 */
	static @Nullable ProcessMarkers readMarkers(Path environ) {
		byte[] bytes = readEnviron(environ);
		return (bytes != null) ? parseMarkers(bytes) : null;
	}

	private static @Nullable ProcessMarkers parseMarkers(byte[] bytes) {
		String server = null;
		String owner = null;
		String instance = null;
		int start = 0;
		for (int i = 0; i <= bytes.length; i++) {
			if (i == bytes.length || bytes[i] == 0) {
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
	static long startTimeOf(Platform platform, long pid) {
		if (platform.hasProcFileSystem()) {
			String[] fields = statFields(PROC.resolve(Long.toString(pid)));
			if (fields == null || isZombie(fields[0].charAt(0))) {
				return -1;
			}
			return Long.parseLong(fields[19]);
		}
		return ProcessHandle.of(pid).map(ProcessScanner::startMillis).orElse(-1L);
	}

	/**
	 * Return the current time in the units of {@link #startTimeOf(Platform, long)}.
	 * @return clock ticks since boot from {@code /proc/uptime}, else epoch milliseconds;
	 * 0 when unknown
	 */
	long now() {
		if (this.platform.hasProcFileSystem()) {
			try {
				String uptime = Files.readString(PROC.resolve("uptime"), StandardCharsets.ISO_8859_1);
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
			String statm = Files.readString(PROC.resolve("self/statm"));
			long residentPages = Long.parseLong(statm.split(" ")[1]);
			for (String line : Files.readAllLines(PROC.resolve("self/status"))) {
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

	private record CachedMarkers(long startTime, @Nullable ProcessMarkers markers) {

	}

}

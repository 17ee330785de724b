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
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

/**
 * A snapshot of the live processes of this machine read from {@code /proc}, with the
 * mcp-stdio markers of each process of this user. Snapshots are shared for a few
 * milliseconds so that many servers counted together cost one scan.
 *
 * @author mcp-stdio authors
 */
final class ProcessTable {

	private static final Path PROC = Path.of("/proc");

	static final boolean SUPPORTED = Files.isReadable(PROC.resolve("self/stat"));

	/** The longest a shared snapshot is reused. */
	private static final long MAX_AGE_NANOS = 100_000_000L;

	/** Markers never change for a process: cache them by pid and start time. */
	private static final Map<Long, CachedMarkers> markerCache = new ConcurrentHashMap<>();

	private static final long PAGE_SIZE = pageSize();

	private static volatile @Nullable ProcessTable shared;

	private static volatile long generation;

	private final Map<Long, Proc> processes;

	private final long takenAt;

	private final long takenInGeneration;

	private ProcessTable(Map<Long, Proc> processes, long takenAt, long takenInGeneration) {
		this.processes = processes;
		this.takenAt = takenAt;
		this.takenInGeneration = takenInGeneration;
	}

	/**
	 * Return a snapshot no older than a few milliseconds and taken after the last
	 * {@link #invalidate()}.
	 * @return a snapshot
	 */
	static ProcessTable recent() {
		ProcessTable table = shared;
		if (table != null && table.takenInGeneration == generation
				&& System.nanoTime() - table.takenAt < MAX_AGE_NANOS) {
			return table;
		}
		table = scan();
		shared = table;
		return table;
	}

	/** Forget the shared snapshot: a process of ours has just ended or started. */
	static void invalidate() {
		generation++;
	}

	static ProcessTable scan() {
		long gen = generation;
		if (!SUPPORTED) {
			return scanWithProcessHandles(gen);
		}
		Map<Long, Proc> processes = new HashMap<>();
		try (DirectoryStream<Path> dirs = Files.newDirectoryStream(PROC)) {
			for (Path dir : dirs) {
				String name = dir.getFileName().toString();
				if (name.isEmpty() || !Character.isDigit(name.charAt(0))) {
					continue;
				}
				Proc proc = readProc(Long.parseLong(name), dir);
				if (proc != null && proc.state != 'Z' && proc.state != 'X') {
					processes.put(proc.pid, proc);
				}
			}
		}
		catch (IOException ex) {
			return scanWithProcessHandles(gen);
		}
		if (markerCache.size() > 4 * processes.size() + 1024) {
			markerCache.keySet().removeIf((pid) -> !processes.containsKey(pid));
		}
		return new ProcessTable(processes, System.nanoTime(), gen);
	}

	private static ProcessTable scanWithProcessHandles(long gen) {
		Map<Long, Proc> processes = new HashMap<>();
		ProcessHandle.allProcesses().forEach((handle) -> {
			long ppid = handle.parent().map(ProcessHandle::pid).orElse(0L);
			processes.put(handle.pid(), new Proc(handle.pid(), ppid, -1, -1, 'R', 0, 0, null));
		});
		return new ProcessTable(processes, System.nanoTime(), gen);
	}

	private static @Nullable Proc readProc(long pid, Path dir) {
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
		if (fields.length < 22) {
			return null;
		}
		char state = fields[0].charAt(0);
		long ppid = Long.parseLong(fields[1]);
		long pgid = Long.parseLong(fields[2]);
		long sid = Long.parseLong(fields[3]);
		long startTime = Long.parseLong(fields[19]);
		long rssBytes = Long.parseLong(fields[21]) * PAGE_SIZE;
		ProcessMarkers markers = markers(pid, startTime, dir);
		return new Proc(pid, ppid, pgid, sid, state, startTime, rssBytes, markers);
	}

	private static @Nullable ProcessMarkers markers(long pid, long startTime, Path dir) {
		CachedMarkers cached = markerCache.get(pid);
		if (cached != null && cached.startTime == startTime) {
			return cached.markers;
		}
		ProcessMarkers markers = readMarkers(dir.resolve("environ"));
		markerCache.put(pid, new CachedMarkers(startTime, markers));
		return markers;
	}

	/**
	 * Read the markers from a process's initial environment, if this user may read it.
	 * @param environ the {@code /proc/PID/environ} file
	 * @return the markers or {@code null}
	 */
	static @Nullable ProcessMarkers readMarkers(Path environ) {
		byte[] bytes;
		try (InputStream in = Files.newInputStream(environ)) {
			// An environment larger than this is not one we started
			bytes = in.readNBytes(256 * 1024);
		}
		catch (IOException | RuntimeException ex) {
			return null;
		}
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

	Collection<Proc> all() {
		return this.processes.values();
	}

	@Nullable Proc get(long pid) {
		return this.processes.get(pid);
	}

	boolean isAlive(long pid, long startTime) {
		Proc proc = this.processes.get(pid);
		return proc != null && (startTime == 0 || proc.startTime == startTime || proc.startTime == 0);
	}

	/**
	 * Return the processes whose parent chain leads to one of the given roots, the roots
	 * excluded.
	 * @param roots the roots
	 * @return the descendants
	 */
	List<Proc> descendantsOf(Collection<Long> roots) {
		Map<Long, List<Proc>> children = new HashMap<>();
		for (Proc proc : this.processes.values()) {
			children.computeIfAbsent(proc.ppid, (k) -> new ArrayList<>()).add(proc);
		}
		List<Proc> result = new ArrayList<>();
		List<Long> queue = new ArrayList<>(roots);
		for (int i = 0; i < queue.size() && i < 100_000; i++) {
			for (Proc child : children.getOrDefault(queue.get(i), List.of())) {
				if (!roots.contains(child.pid)) {
					result.add(child);
					queue.add(child.pid);
				}
			}
		}
		return result;
	}

	/**
	 * One live process.
	 *
	 * @param pid its id
	 * @param ppid its parent's id
	 * @param pgid its process group, -1 when unknown
	 * @param sid its session, -1 when unknown
	 * @param state its state letter
	 * @param startTime its start time in clock ticks since boot, 0 when unknown
	 * @param rssBytes its resident memory
	 * @param markers its mcp-stdio markers, when it has them and they are readable
	 */
	record Proc(long pid, long ppid, long pgid, long sid, char state, long startTime, long rssBytes,
			@Nullable ProcessMarkers markers) {

	}

	private record CachedMarkers(long startTime, @Nullable ProcessMarkers markers) {

	}

}

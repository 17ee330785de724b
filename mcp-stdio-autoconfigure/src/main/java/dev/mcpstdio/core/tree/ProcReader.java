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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The one reader of /proc, every read bounded in size.
 *
 * @author mcp-stdio authors
 */
public final class ProcReader {

	/** The flag of {@code stat} that a process in {@code exit()} carries (sched.h). */
	private static final long PF_EXITING = 0x4;

	private final Path root;

	private final String prefix;

	/**
	 * Create a reader of a {@code /proc} file system.
	 * @param root where it is mounted: {@code /proc}, or a copy in tests
	 */
	public ProcReader(Path root) {
		this.root = root;
		this.prefix = root.toString() + "/";
	}

	/**
	 * Return a reader of this machine's {@code /proc}.
	 * @return the reader
	 */
	public static ProcReader system() {
		return new ProcReader(Path.of("/proc"));
	}

	/**
	 * Return a file of this file system, for the few that only one class reads
	 * ({@code self/mountinfo}, {@code self/cgroup}, {@code self/stat} to tell whether it
	 * can be read).
	 * @param relative the file's path below the root
	 * @return the path
	 */
	public Path path(String relative) {
		return this.root.resolve(relative);
	}

	/**
	 * Read the {@code stat} of a process.
	 * @param pid the process
	 * @return its fields, or {@code null} when it is gone
	 */
	public @Nullable Stat stat(long pid) {
		ProcCursor cursor = cursor();
		return cursor.readStat(pid) ? cursor.stat(pid) : null;
	}

	/**
	 * Read the markers of a process from its environment.
	 * @param pid the process
	 * @return its markers, or {@code null} when it has none or cannot be read
	 */
	public @Nullable ProcessMarkers markers(long pid) {
		ProcCursor cursor = cursor();
		int length = cursor.readEnviron(pid);
		return (length > 0) ? ProcessMarkers.parse(cursor.buffer(), length) : null;
	}

	/**
	 * Return the user a process runs as: the owner of its directory, which is its
	 * effective user.
	 * @param pid the process
	 * @return the user id, -1 when unknown
	 */
	public long uid(long pid) {
		try {
			return ((Number) Files.getAttribute(this.root.resolve(Long.toString(pid)), "unix:uid")).longValue();
		}
		catch (IOException | RuntimeException ex) {
			return -1;
		}
	}

	/**
	 * Return the ids of the processes listed now.
	 * @return the pids
	 * @throws IOException if the file system cannot be listed
	 */
	public List<Long> pids() throws IOException {
		// every scan lists every process of the machine: names only, no pattern
		String[] names = this.root.toFile().list();
		if (names == null) {
			throw new IOException("cannot list " + this.root);
		}
		List<Long> pids = new ArrayList<>(names.length);
		for (String name : names) {
			long pid = pid(name);
			if (pid >= 0) {
				pids.add(pid);
			}
		}
		return pids;
	}

	/** The pid a name of /proc's root stands for, -1 when it names no process. */
	private static long pid(String name) {
		int length = name.length();
		if (length == 0 || length > 18) {
			return -1;
		}
		long pid = 0;
		for (int i = 0; i < length; i++) {
			char c = name.charAt(i);
			if (c < '0' || c > '9') {
				return -1;
			}
			pid = pid * 10 + (c - '0');
		}
		return pid;
	}

	/**
	 * Return this machine's host name, as the kernel knows it.
	 * @return the name, or {@code null} when it cannot be read
	 */
	public @Nullable String hostName() {
		try {
			String name = Files.readString(this.root.resolve("sys/kernel/hostname"), StandardCharsets.UTF_8).strip();
			return name.isEmpty() ? null : name;
		}
		catch (IOException | RuntimeException ex) {
			return null;
		}
	}

	/**
	 * Return the size of a memory page, for the resident set in {@code stat}.
	 * @return the page size in bytes
	 */
	public long pageSize() {
		// The kernel does not export it in /proc; compare two views of our own RSS
		try {
			String statm = Files.readString(this.root.resolve("self/statm"));
			long residentPages = Long.parseLong(statm.split(" ")[1]);
			for (String line : Files.readAllLines(this.root.resolve("self/status"))) {
				if (line.startsWith("VmRSS:")) {
					long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
					long ratio = kb * 1024 / Math.max(1, residentPages);
					return Long.highestOneBit(Math.max(4096, ratio + ratio / 4));
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			// the common size
		}
		return 4096;
	}

	/**
	 * Return a cursor that reads many processes into one buffer, for a scan.
	 * @return a new cursor, for one thread
	 */
	ProcCursor cursor() {
		return new ProcCursor(this.prefix);
	}

	/**
	 * The fields of a process's {@code stat} that mcp-stdio uses.
	 *
	 * @param ids the process, its parent, its process group and its session
	 * @param state its state letter
	 * @param flags its kernel flags
	 * @param startTime when it started, in clock ticks since boot
	 * @param rssPages its resident memory, in pages
	 */
	public record Stat(ProcessTable.Ids ids, char state, long flags, long startTime, long rssPages) {

		/**
		 * Return whether the process has ended and waits to be reaped: its pid is still
		 * taken.
		 * @return whether it is a zombie
		 */
		public boolean isZombie() {
			return this.state == 'Z' || this.state == 'X';
		}

		/**
		 * Return whether the process is in {@code exit()}: its memory, environment
		 * included, is gone.
		 * @return whether it is exiting
		 */
		public boolean isExiting() {
			return (this.flags & PF_EXITING) != 0;
		}

	}

}

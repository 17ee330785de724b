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
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

/**
 * The environment variables that mark every process started for a server.
 *
 * @author mcp-stdio authors
 */
public record ProcessMarkers(String server, long ownerPid, @Nullable String instance, @Nullable String application) {

	// So that its processes can be found even after they left its tree: the server, the
	// owner JVM's pid, the one start that made it, and the application (null when a
	// process carries none).

	/** Names the server a process was started for. */
	public static final String SERVER = "MCP_STDIO_SERVER";

	/** The pid of the JVM that started the process. */
	public static final String OWNER_PID = "MCP_STDIO_OWNER_PID";

	/**
	 * Tells one start of a server from another (a restart, a reconnect):
	 * {@code <owner pid>.<owner start time>.<start number>}, naming the owner JVM by
	 * evidence that survives the reuse of its pid (its start time, in clock ticks since
	 * boot).
	 */
	public static final String INSTANCE = "MCP_STDIO_INSTANCE";

	/**
	 * Names the application whose JVM started the process, so that a start-up sweep
	 * claims only its own leftovers.
	 */
	public static final String APPLICATION = "MCP_STDIO_APPLICATION";

	/** Every marker's name. */
	public static final List<String> NAMES = List.of(SERVER, OWNER_PID, INSTANCE, APPLICATION);

	/** The pid of this JVM. */
	public static final long CURRENT_PID = ProcessHandle.current().pid();

	/** When this JVM started, in clock ticks since boot; 0 when unknown. */
	public static final long CURRENT_START = startOfCurrent();

	/** The prefix of every instance marker this JVM hands out. */
	static final String CURRENT_OWNER = CURRENT_PID + "." + CURRENT_START;

	private static final AtomicLong starts = new AtomicLong();

	private static long startOfCurrent() {
		ProcReader.Stat stat = ProcReader.system().stat(CURRENT_PID);
		return (stat != null) ? stat.startTime() : 0;
	}

	/**
	 * Return a new instance marker value for one start of a server by this JVM.
	 * @return the value
	 */
	public static String newInstance() {
		return CURRENT_OWNER + "." + starts.incrementAndGet();
	}

	/**
	 * Read the markers from the bytes of a process's environment. As {@code getenv}, the
	 * first entry of a name counts. A process carries markers only when it has a
	 * non-empty server name and a numeric owner pid.
	 * @param environ the entries, each ended by a NUL byte
	 * @param length how many bytes to read
	 * @return the markers or {@code null}
	 */
	public static @Nullable ProcessMarkers parse(byte[] environ, int length) {
		// server, owner pid, instance, application: the first entry of each counts
		String[] values = new String[NAMES.size()];
		int start = 0;
		for (int i = 0; i <= length; i++) {
			if (i == length || environ[i] == 0) {
				if (i - start > 11 && environ[start] == 'M' && environ[start + 1] == 'C') {
					String entry = new String(environ, start, i - start, StandardCharsets.UTF_8);
					for (int n = 0; n < values.length; n++) {
						values[n] = (values[n] != null) ? values[n] : valueOf(entry, NAMES.get(n));
					}
				}
				start = i + 1;
			}
		}
		String server = values[0];
		String owner = values[1];
		if (server == null || server.isEmpty() || owner == null || !digits(owner, 0, owner.length())) {
			return null;
		}
		return new ProcessMarkers(server, Long.parseLong(owner), values[2], values[3]);
	}

	private static @Nullable String valueOf(String entry, String name) {
		return (entry.length() > name.length() && entry.charAt(name.length()) == '=' && entry.startsWith(name))
				? entry.substring(name.length() + 1) : null;
	}

	/**
	 * Return whether the instance marker was handed out by the owner JVM these markers
	 * name, and so tells that JVM's start time.
	 * @return whether the instance reads {@code <owner pid>.<start>.<number>}
	 */
	public boolean hasOwnInstance() {
		String value = this.instance;
		String owner = this.ownerPid + ".";
		if (value == null || !value.startsWith(owner)) {
			return false;
		}
		int dot = value.indexOf('.', owner.length());
		return dot > owner.length() && digits(value, owner.length(), dot) && digits(value, dot + 1, value.length());
	}

	private static boolean digits(String text, int from, int to) {
		return from < to && to - from <= 18
				&& text.substring(from, to).chars().allMatch((ch) -> ch >= '0' && ch <= '9');
	}

	/**
	 * Return the JVM that started the process, as its instance marker names it.
	 * @return the owner, or {@code null} when the markers do not tell its start
	 */
	public ProcessMarkers.@Nullable Owner owner() {
		if (!hasOwnInstance()) {
			return null;
		}
		// at most 18 digits, as hasOwnInstance() checked: they fit a long
		int first = this.instance.indexOf('.');
		long start = Long.parseLong(this.instance, first + 1, this.instance.indexOf('.', first + 1), 10);
		return new Owner(this.ownerPid, Long.toString(start), Owner.HOST);
	}

	/**
	 * Return whether this JVM started the process: its pid and its start time match, so a
	 * JVM that merely reuses the pid of a dead owner is not taken for it.
	 * @return whether the process is this JVM's
	 */
	public boolean isOwnedByThisJvm() {
		return this.ownerPid == CURRENT_PID && hasOwnInstance() && this.instance.startsWith(CURRENT_OWNER + ".");
	}

	/**
	 * A JVM that owns servers, identified by pid, start time and host.
	 */
	public record Owner(long pid, String start, String host) {

		// So that a process that reused the pid of a dead owner does not protect its
		// leftovers. The start is in clock ticks since boot from /proc where it exists
		// (exact), else the start instant in epoch milliseconds, written with an ms
		// suffix
		// and compared with a tolerance.

		/** How far two readings of one process's start instant may differ. */
		private static final long START_TOLERANCE_MILLIS = 2000;

		private static final String HOST = hostName();

		private static final Owner CURRENT = of(CURRENT_PID);

		/**
		 * Return this JVM as an owner.
		 * @return the owner
		 */
		public static Owner current() {
			return CURRENT;
		}

		/**
		 * Return the owner identity of a live process of this host.
		 * @param pid the process
		 * @return the owner
		 */
		public static Owner of(long pid) {
			String start = startOf(pid);
			return new Owner(pid, (start != null) ? start : "0", HOST);
		}

		/**
		 * Return this owner as one word: the value of the containers' owner label, part
		 * of the cgroup name.
		 * @return {@code <pid>@<start>}
		 */
		public String id() {
			return this.pid + "@" + this.start;
		}

		/**
		 * Read an owner from its {@link #id()} and host.
		 * @param label the id
		 * @param host the host
		 * @return the owner, or {@code null} when the id is not one of ours
		 */
		public static @Nullable Owner parse(@Nullable String label, @Nullable String host) {
			if (label == null || host == null) {
				return null;
			}
			int at = label.indexOf('@');
			if (at <= 0 || at == label.length() - 1) {
				return null;
			}
			try {
				return new Owner(Long.parseLong(label.substring(0, at)), label.substring(at + 1), host);
			}
			catch (NumberFormatException ex) {
				return null;
			}
		}

		/**
		 * Return whether this owner runs on this host.
		 * @return whether {@link #isAlive()} can tell
		 */
		public boolean isLocal() {
			return this.host.equals(HOST);
		}

		/**
		 * Return whether this owner, a JVM of this host, is still running: its pid is
		 * alive and was started when the owner was. Not meaningful for another host's
		 * owner.
		 * @return whether the owner lives
		 */
		public boolean isAlive() {
			Optional<ProcessHandle> handle = ProcessHandle.of(this.pid);
			if (handle.isEmpty() || !handle.get().isAlive()) {
				return false;
			}
			if (this.start.equals("0")) {
				// the owner could not tell its own start: a live pid protects its
				// containers
				return true;
			}
			if (this.start.endsWith("ms")) {
				Optional<Instant> started = handle.get().info().startInstant();
				if (started.isEmpty()) {
					// cannot tell: a live pid protects its containers
					return true;
				}
				try {
					long millis = Long.parseLong(this.start.substring(0, this.start.length() - 2));
					return Math.abs(started.get().toEpochMilli() - millis) <= START_TOLERANCE_MILLIS;
				}
				catch (NumberFormatException ex) {
					return true;
				}
			}
			String now = startOf(this.pid);
			return now == null || now.equals(this.start);
		}

		/** The start in clock ticks since boot from {@code /proc}, else in epoch ms. */
		private static @Nullable String startOf(long pid) {
			ProcReader.Stat stat = ProcReader.system().stat(pid);
			if (stat != null && !stat.isZombie()) {
				return Long.toString(stat.startTime());
			}
			return ProcessHandle.of(pid)
				.flatMap((handle) -> handle.info().startInstant())
				.map((instant) -> instant.toEpochMilli() + "ms")
				.orElse(null);
		}

		private static String hostName() {
			String name = ProcReader.system().hostName();
			if (name != null) {
				return name;
			}
			String env = System.getenv("HOSTNAME");
			if (env != null && !env.isBlank()) {
				return env.trim();
			}
			try {
				return InetAddress.getLocalHost().getHostName();
			}
			catch (IOException | RuntimeException ex) {
				return "localhost";
			}
		}

	}

}

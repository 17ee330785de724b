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

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * A JVM that owns servers, identified by pid, start time and host.
 *
 * @author mcp-stdio authors
 */
public record JvmOwner(long pid, String start, String host) {

	// So that a process that reused the pid of a dead owner does not protect its
	// leftovers. The start is in clock ticks since boot from /proc where it exists
	// (exact), else the start instant in epoch milliseconds, written with an ms suffix
	// and compared with a tolerance.

	/** How far two readings of one process's start instant may differ. */
	private static final long START_TOLERANCE_MILLIS = 2000;

	private static final JvmOwner CURRENT = of(ProcessHandle.current().pid(), hostName());

	/**
	 * Return this JVM as an owner.
	 * @return the owner
	 */
	public static JvmOwner current() {
		return CURRENT;
	}

	/**
	 * Return an owner of this host.
	 * @param pid its pid
	 * @param start its start time, as described above
	 * @return the owner
	 */
	public static JvmOwner local(long pid, String start) {
		return new JvmOwner(pid, start, CURRENT.host);
	}

	/**
	 * Return the owner identity of a live process of this host.
	 * @param pid the process
	 * @return the owner
	 */
	public static JvmOwner of(long pid) {
		return of(pid, CURRENT.host);
	}

	private static JvmOwner of(long pid, String host) {
		String start = startOf(pid);
		return new JvmOwner(pid, (start != null) ? start : "0", host);
	}

	/**
	 * Return this owner as one word: the value of the containers' owner label, part of
	 * the cgroup name.
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
	public static @Nullable JvmOwner parse(@Nullable String label, @Nullable String host) {
		if (label == null || host == null) {
			return null;
		}
		int at = label.indexOf('@');
		if (at <= 0 || at == label.length() - 1) {
			return null;
		}
		try {
			return new JvmOwner(Long.parseLong(label.substring(0, at)), label.substring(at + 1), host);
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
		return this.host.equals(CURRENT.host);
	}

	/**
	 * Return whether this owner, a JVM of this host, is still running: its pid is alive
	 * and was started when the owner was. Not meaningful for another host's owner.
	 * @return whether the owner lives
	 */
	public boolean isAlive() {
		Optional<ProcessHandle> handle = ProcessHandle.of(this.pid);
		if (handle.isEmpty() || !handle.get().isAlive()) {
			return false;
		}
		if (this.start.equals("0")) {
			// the owner could not tell its own start: a live pid protects its containers
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

	private static @Nullable String startOf(long pid) {
		String ticks = startTicks(pid);
		if (ticks != null) {
			return ticks;
		}
		return ProcessHandle.of(pid)
			.flatMap((handle) -> handle.info().startInstant())
			.map((instant) -> instant.toEpochMilli() + "ms")
			.orElse(null);
	}

	/** The start time in clock ticks since boot, from {@code /proc}. */
	private static @Nullable String startTicks(long pid) {
		ProcReader.Stat stat = ProcReader.system().stat(pid);
		return (stat != null && !stat.isZombie()) ? Long.toString(stat.startTime()) : null;
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

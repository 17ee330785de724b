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

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * What this operating system offers mcp-stdio, found out once.
 *
 * @param osName the operating system's name, in lower case
 * @param setsid the {@code setsid} executable that starts each server as the leader of
 * its own session and process group, or {@code null} where there is none
 * @param hasProcFileSystem whether {@code /proc} tells every process's parent, group,
 * session, start time, memory and environment
 * @param shell the POSIX shell the orphan guard runs in, or {@code null}
 * @author mcp-stdio authors
 */
public record Platform(String osName, @Nullable String setsid, boolean hasProcFileSystem, @Nullable String shell) {

	// Whether servers can get a session of their own (setsid), whether live processes can
	// be read from /proc, and whether a POSIX shell can run the orphan guard: every other
	// class asks a Platform instead of probing for itself.

	private static final List<String> SETSID_CANDIDATES = List.of("/usr/bin/setsid", "/bin/setsid");

	private static final Path SHELL = Path.of("/bin/sh");

	private static final Platform CURRENT = detect();

	public Platform {
		osName = osName.toLowerCase(Locale.ROOT);
	}

	/**
	 * Return the platform this JVM runs on, probed once.
	 * @return the platform
	 */
	public static Platform current() {
		return CURRENT;
	}

	private static Platform detect() {
		String os = System.getProperty("os.name", "");
		boolean windows = os.toLowerCase(Locale.ROOT).startsWith("windows");
		String setsid = windows ? null
				: SETSID_CANDIDATES.stream()
					.filter((candidate) -> Files.isExecutable(Path.of(candidate)))
					.findFirst()
					.orElse(null);
		String shell = (!windows && Files.isExecutable(SHELL)) ? SHELL.toString() : null;
		return new Platform(os, setsid, Files.isReadable(ProcReader.system().path("self/stat")), shell);
	}

	public boolean isWindows() {
		return this.osName.startsWith("windows");
	}

	/**
	 * Return whether servers lead their own session and process group.
	 * @return whether {@link #setsid()} exists
	 */
	public boolean ownSessions() {
		return this.setsid != null;
	}

	/**
	 * Return a command that runs the given one as the leader of its own session and
	 * process group, where {@code setsid} exists: it executes in place, so the pid
	 * started is the command's.
	 * @param command the command
	 * @return the command after {@code setsid}, or the command itself where there is none
	 */
	public List<String> inOwnSession(List<String> command) {
		return (this.setsid != null) ? Stream.concat(Stream.of(this.setsid), command.stream()).toList() : command;
	}

	/**
	 * Return whether the orphan guard can run: a POSIX shell on Linux or macOS.
	 * @return whether the guard is supported
	 */
	public boolean supportsOrphanGuard() {
		return this.shell != null && (this.osName.contains("linux") || this.osName.contains("mac"));
	}

	/**
	 * Return the protections this platform lacks, each as a sentence for a start-up
	 * warning; empty where everything is in place (or on Windows, which has none of them
	 * and where nobody expects them).
	 * @return the missing protections
	 */
	public List<String> missingProtections() {
		List<String> missing = new ArrayList<>();
		if (isWindows()) {
			return missing;
		}
		if (this.setsid == null) {
			missing.add("no setsid: servers share the application's process group and session, so only their "
					+ "descendants and marked processes are ended with them");
		}
		if (!this.hasProcFileSystem) {
			missing.add("no /proc: process trees are read through ProcessHandle, without markers, groups or memory");
		}
		if (!supportsOrphanGuard()) {
			missing.add("no /bin/sh: the orphan guard cannot run, so servers may outlive a killed JVM");
		}
		return missing;
	}

}

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

import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

/**
 * The environment variables that mark every process started for a server, so that its
 * processes can be found even after they left its tree.
 * <p>
 * The instance marker reads {@code <owner pid>.<owner start time>.<start number>}: it
 * names the owner JVM by evidence that survives the reuse of its pid (its start time, in
 * the units of {@link ProcessScanner#startTimeOf(long)}) and tells one start of a server
 * from another.
 *
 * @param server the server name ({@value #SERVER})
 * @param ownerPid the pid of the JVM that started it ({@value #OWNER_PID})
 * @param instance the id of the one start that made it ({@value #INSTANCE})
 * @author mcp-stdio authors
 */
public record ProcessMarkers(String server, long ownerPid, @Nullable String instance) {

	/** Names the server a process was started for. */
	public static final String SERVER = "MCP_STDIO_SERVER";

	/** The pid of the JVM that started the process. */
	public static final String OWNER_PID = "MCP_STDIO_OWNER_PID";

	/** Tells one start of a server from another (a restart, a reconnect). */
	public static final String INSTANCE = "MCP_STDIO_INSTANCE";

	/** The pid of this JVM. */
	public static final long CURRENT_PID = ProcessHandle.current().pid();

	/**
	 * When this JVM started, in the units of {@link ProcessScanner#startTimeOf(long)}.
	 */
	public static final long CURRENT_START = ProcessScanner.startTimeOf(Platform.current(), CURRENT_PID);

	/** The prefix of every instance marker this JVM hands out. */
	static final String CURRENT_OWNER = CURRENT_PID + "." + CURRENT_START;

	private static final AtomicLong starts = new AtomicLong();

	/**
	 * Return a new instance marker value for one start of a server by this JVM.
	 * @return the value
	 */
	public static String newInstance() {
		return CURRENT_OWNER + "." + starts.incrementAndGet();
	}

	/**
	 * Return the start time of the owner JVM, from the instance marker.
	 * @return the start time, or -1 when the marker does not tell it
	 */
	public long ownerStart() {
		if (this.instance == null) {
			return -1;
		}
		int first = this.instance.indexOf('.');
		int second = this.instance.indexOf('.', first + 1);
		if (first < 0 || second < 0) {
			return -1;
		}
		try {
			return Long.parseLong(this.instance, first + 1, second, 10);
		}
		catch (NumberFormatException ex) {
			return -1;
		}
	}

	/**
	 * Return whether this JVM started the process: its pid and its start time match, so a
	 * JVM that merely reuses the pid of a dead owner is not taken for it.
	 * @return whether the process is this JVM's
	 */
	public boolean isOwnedByThisJvm() {
		return this.ownerPid == CURRENT_PID && this.instance != null && this.instance.startsWith(CURRENT_OWNER + ".");
	}

}

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

package dev.mcpstdio.core.containment;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import dev.mcpstdio.core.tree.Platform;
import dev.mcpstdio.core.tree.ProcessMarkers;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The orphan guard's watcher: one small {@code sh} per host that learns each server's
 * root through its stdin and, when that stdin reaches its end (the JVM is gone, SIGKILL
 * and {@code Runtime.halt} included), ends what {@link dev.mcpstdio.core.tree.Membership}
 * proves is left of the servers, bounded by their shutdown timeouts, and runs the reaper
 * scripts.
 *
 * @author mcp-stdio authors
 */
final class GuardWatcher {

	private static final Log logger = LogFactory.getLog(OrphanGuard.class);

	/** The watcher's script, {@code orphan-guard.sh} beside this class. */
	static final String SCRIPT = ReaperScripts.resource("orphan-guard.sh");

	/** The variable that hands the script to {@code sh}: its only use, unset at once. */
	static final String SCRIPT_VARIABLE = "MCP_STDIO_GUARD_SCRIPT";

	/**
	 * The watcher's whole program on its command line,
	 * {@code sh -c LOADER mcp-stdio-guard
	 * <application> <jvm pid> <jvm start time>}: the script reaches {@code sh} through
	 * the environment, which only this user and root can read, so {@code ps} shows a
	 * short line, and no file is written where another user could prepare or replace it.
	 */
	static final String LOADER = "eval \"$" + SCRIPT_VARIABLE + "\"";

	/** The watcher's {@code $0}, what {@code ps} shows after the loader. */
	static final String NAME = "mcp-stdio-guard";

	private final Process process;

	private final OutputStream input;

	private GuardWatcher(Process process) {
		this.process = process;
		this.input = process.getOutputStream();
	}

	/**
	 * Start a watcher and write it its first lines.
	 * @param platform what the OS offers
	 * @param application the application, named on the watcher's command line
	 * @param lines what it learns first: every reaper script and server known
	 * @param onExit called once it has ended
	 * @return the watcher
	 * @throws IOException if it cannot be started
	 */
	static GuardWatcher start(Platform platform, String application, String lines, Runnable onExit) throws IOException {
		ProcessBuilder builder = new ProcessBuilder(platform.inOwnSession(List.of(platform.shell(), "-c", LOADER, NAME,
				application, Long.toString(ProcessMarkers.CURRENT_PID), Long.toString(ProcessMarkers.CURRENT_START))));
		builder.environment().clear();
		builder.environment()
			.putAll(Map.of("PATH", "/usr/bin:/bin:/usr/sbin:/sbin", "LC_ALL", "C", SCRIPT_VARIABLE, SCRIPT));
		builder.redirectOutput(ProcessBuilder.Redirect.DISCARD);
		builder.redirectError(ProcessBuilder.Redirect.DISCARD);
		Process process = builder.start();
		process.onExit().thenRun(onExit);
		if (logger.isDebugEnabled()) {
			logger.debug("Started the MCP server orphan guard (pid " + process.pid() + ")");
		}
		GuardWatcher watcher = new GuardWatcher(process);
		try {
			watcher.write(lines);
		}
		catch (IOException ex) {
			logger.warn(
					"The MCP server orphan guard (pid " + process.pid() + ") ended at once (" + ex.getMessage() + ")");
		}
		return watcher;
	}

	boolean isAlive() {
		return this.process.isAlive();
	}

	long pid() {
		return this.process.pid();
	}

	/**
	 * Write lines to the watcher's stdin.
	 * @param lines the lines, each with its newline
	 * @throws IOException if the watcher died
	 */
	void write(String lines) throws IOException {
		this.input.write(lines.getBytes(StandardCharsets.US_ASCII));
		this.input.flush();
	}

}

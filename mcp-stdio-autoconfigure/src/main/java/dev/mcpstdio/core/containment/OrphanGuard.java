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
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.core.tree.Platform;
import dev.mcpstdio.core.tree.ProcessMarkers;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Makes sure that no server outlives its JVM, however the JVM dies.
 *
 * @author mcp-stdio authors
 */
public final class OrphanGuard {

	private static final Log logger = LogFactory.getLog(OrphanGuard.class);

	/** The watcher's script, {@code orphan-guard.sh} beside this class. */
	static final String SCRIPT = resource("orphan-guard.sh");

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

	/** How many lines may wait for the watcher before new ones are dropped. */
	private static final int QUEUE_CAPACITY = 4096;

	private final Platform platform;

	private final String application;

	private volatile boolean enabled;

	private final Object lock = new Object();

	/** The servers the watcher must know, by pid, with their start lines. */
	private final Map<Long, String> known = new LinkedHashMap<>();

	/** The scripts the watcher runs once the JVM is gone, as their lines. */
	private final Set<String> reapers = new LinkedHashSet<>();

	private final BlockingQueue<String> lines = new ArrayBlockingQueue<>(QUEUE_CAPACITY);

	/**
	 * One small {@code sh} per host, started with its first server: it learns each
	 * server's root through its stdin; when that stdin reaches its end (the JVM is gone,
	 * SIGKILL and {@code Runtime.halt} included), it ends what
	 * {@link dev.mcpstdio.core.tree.Membership} proves is left of the servers, bounded by
	 * their shutdown timeouts, and runs the reaper scripts.
	 */
	private @Nullable Process watcher;

	private @Nullable OutputStream input;

	private @Nullable Thread writer;

	private boolean overflowReported;

	/** Whether the host closed: the writer ends once it handed over what is queued. */
	private volatile boolean closed;

	/** The reaper scripts written so far, by name; guarded by this guard. */
	private final Map<String, String> written = new HashMap<>();

	/** Where the reaper scripts (and cidfiles) go; guarded by this guard. */
	private @Nullable Path directory;

	/**
	 * Create a guard.
	 * @param platform what the OS offers
	 * @param enabled whether to guard the servers, where the platform can
	 * @param application the application, named on the watcher's command line
	 */
	public OrphanGuard(Platform platform, boolean enabled, String application) {
		this.platform = platform;
		this.enabled = enabled && platform.supportsOrphanGuard();
		this.application = application;
	}

	/**
	 * Return a script beside this class.
	 * @param name its file name
	 * @return its text
	 */
	static String resource(String name) {
		try (InputStream in = OrphanGuard.class.getResourceAsStream(name)) {
			if (in == null) {
				throw new IllegalStateException(name + " is missing beside " + OrphanGuard.class.getName());
			}
			return new String(in.readNBytes(64 * 1024), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static String quote(String word) {
		return "'" + word.replace("'", "'\\''") + "'";
	}

	/**
	 * Return whether servers started from now on are guarded.
	 * @return whether the guard is on
	 */
	public boolean isEnabled() {
		return this.enabled;
	}

	/**
	 * Tell the watcher about a server that has just started.
	 * @param pid the server's root pid
	 * @param startTime the root's start time, 0 when unknown
	 * @param ownGroup whether the root leads its own process group
	 * @param stdinClose how long the server may take to exit by itself
	 * @param terminate how long it may take to exit after SIGTERM
	 */
	public void started(long pid, long startTime, boolean ownGroup, Duration stdinClose, Duration terminate) {
		if (!this.enabled || (startTime == 0 && this.platform.hasProcFileSystem())) {
			// a root whose start time is unknown was reaped before it was read: its pid
			// proves nothing
			return;
		}
		String line = "S " + pid + " " + (ownGroup ? "g" : "p") + " " + startTime + " " + stdinClose.toMillis() + " "
				+ terminate.toMillis() + "\n";
		synchronized (this.lock) {
			this.known.put(pid, line);
			if (this.writer == null) {
				this.writer = new Thread(this::writeLines, "mcp-stdio-orphan-guard");
				this.writer.setDaemon(true);
				this.writer.start();
			}
			if (this.watcher == null || !this.watcher.isAlive()) {
				// Guarded before the start returns: a new watcher learns every server,
				// this one included
				this.lines.clear();
				this.input = startWatcher();
			}
			else {
				offer(line);
			}
		}
	}

	/**
	 * Make sure the watcher runs a script once this JVM is gone, for what its process
	 * scan cannot end (containers, cgroups): written to a directory of this user's only,
	 * rewritten in place when it changed.
	 * @param name the script's name, such as {@code containers}
	 * @param script its text, or {@code null} for none
	 */
	synchronized void reaper(String name, @Nullable String script) {
		if (!this.enabled || script == null || script.equals(this.written.get(name))) {
			return;
		}
		try {
			Path file = directory().resolve(name + ".sh");
			Path temporary = file.resolveSibling(name + ".sh.tmp");
			Files.writeString(temporary, script, StandardCharsets.UTF_8);
			Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rwx------"));
			announce(Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE));
			this.written.put(name, script);
		}
		catch (IOException | RuntimeException ex) {
			logger.warn("Could not write the script that ends this JVM's MCP server " + name + " if it is killed ("
					+ ex.getMessage() + "); the next start-up's sweep ends what is left");
		}
	}

	/**
	 * Return the directory of the reaper scripts, where cidfiles of containers go too:
	 * the watcher removes what is left in it once it ran the scripts.
	 * @return the directory, or {@code null} when the guard is off or it cannot be made
	 */
	synchronized @Nullable Path privateDirectory() {
		try {
			return this.enabled ? directory() : null;
		}
		catch (IOException ex) {
			return null;
		}
	}

	/** A directory of this user's only (created so on POSIX), once per guard. */
	private Path directory() throws IOException {
		if (this.directory == null) {
			this.directory = Files.createTempDirectory("mcp-stdio-guard-");
		}
		return this.directory;
	}

	/**
	 * Tell the watcher about a script to run once this JVM is gone:
	 * {@code sh <script> <stdinCloseMillis> <terminateMillis>}, with the largest bounds
	 * of the servers, in the background. The watcher deletes it after it ran.
	 * @param script the script, in a directory of this user's only
	 */
	void announce(Path script) {
		String path = script.toAbsolutePath().toString();
		if (!this.enabled) {
			return;
		}
		if (path.chars().anyMatch(Character::isWhitespace)) {
			logger.warn("The MCP server orphan guard cannot run " + path
					+ " (its path has white space): containers and cgroups of a killed JVM are left to the next "
					+ "start-up's sweep");
			return;
		}
		String line = "R " + path + "\n";
		synchronized (this.lock) {
			if (this.reapers.add(line) && this.watcher != null && this.watcher.isAlive()) {
				offer(line);
			}
		}
	}

	/**
	 * Tell the watcher that a server's root process has ended and its pid may be reused.
	 * @param pid the server's root pid
	 */
	public void ended(long pid) {
		synchronized (this.lock) {
			if (this.known.remove(pid) != null) {
				offer("E " + pid + "\n");
			}
		}
	}

	private void offer(String line) {
		if (!this.lines.offer(line) && !this.overflowReported) {
			this.overflowReported = true;
			logger.warn("The MCP server orphan guard does not keep up (" + QUEUE_CAPACITY
					+ " lines waiting); servers started from now on may outlive a killed JVM");
		}
	}

	/**
	 * Hand the queued lines to the watcher, starting it (again) when it is not running: a
	 * new watcher first learns every server still known.
	 */
	private void writeLines() {
		while (true) {
			String line;
			try {
				line = this.lines.poll(1, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				return;
			}
			OutputStream current;
			synchronized (this.lock) {
				boolean gone = this.watcher != null && !this.watcher.isAlive();
				if (this.closed && (line == null || gone)) {
					// told to quit, and it did: nothing to replace
					return;
				}
				if (gone) {
					logger.warn("The MCP server orphan guard (pid " + this.watcher.pid()
							+ ") is gone; starting a new one that learns the " + this.known.size()
							+ " running servers");
					this.watcher = null;
					this.input = null;
					if (!this.known.isEmpty() && this.enabled) {
						// it learns every server still known, so this line is not needed
						this.input = startWatcher();
						continue;
					}
				}
				current = this.input;
			}
			if (line != null && !line.isEmpty() && current != null) {
				try {
					current.write(line.getBytes(StandardCharsets.US_ASCII));
					current.flush();
				}
				catch (IOException ex) {
					// The watcher died: the next round starts another that learns every
					// server still known, this one's included
				}
			}
		}
	}

	/**
	 * Start a watcher and write it every known server. Called with the lock held.
	 * @return its stdin, or {@code null} when it could not start
	 */
	private @Nullable OutputStream startWatcher() {
		ProcessBuilder builder = new ProcessBuilder(
				this.platform.inOwnSession(List.of(this.platform.shell(), "-c", LOADER, NAME, this.application,
						Long.toString(ProcessMarkers.CURRENT_PID), Long.toString(ProcessMarkers.CURRENT_START))));
		builder.environment().clear();
		builder.environment()
			.putAll(Map.of("PATH", "/usr/bin:/bin:/usr/sbin:/sbin", "LC_ALL", "C", SCRIPT_VARIABLE, SCRIPT));
		builder.redirectOutput(ProcessBuilder.Redirect.DISCARD);
		builder.redirectError(ProcessBuilder.Redirect.DISCARD);
		Process process;
		try {
			process = builder.start();
		}
		catch (IOException ex) {
			logger.warn("Could not start the MCP server orphan guard; servers may outlive a killed JVM: "
					+ ex.getMessage());
			this.enabled = false;
			return null;
		}
		this.watcher = process;
		// A watcher killed by someone is replaced at once, not at the next server start
		process.onExit().thenRun(() -> this.lines.offer(""));
		if (logger.isDebugEnabled()) {
			logger.debug("Started the MCP server orphan guard (pid " + process.pid() + ")");
		}
		OutputStream input = process.getOutputStream();
		try {
			String all = String.join("", this.reapers) + String.join("", this.known.values());
			input.write(all.getBytes(StandardCharsets.US_ASCII));
			input.flush();
		}
		catch (IOException ex) {
			logger.warn(
					"The MCP server orphan guard (pid " + process.pid() + ") ended at once (" + ex.getMessage() + ")");
		}
		return input;
	}

	/**
	 * Let the watcher go without ending anything, and delete its reaper scripts, unless a
	 * server it knows still runs: then it keeps watching, so that it still ends that
	 * server if the JVM dies.
	 * @return whether it quit: {@code false} when it keeps watching
	 */
	public boolean quit() {
		synchronized (this.lock) {
			if (!this.known.isEmpty()) {
				logger.warn("The MCP server orphan guard keeps watching " + this.known.size()
						+ " servers that still run after their host closed");
				return false;
			}
			this.enabled = false;
			this.closed = true;
			if (this.watcher != null && this.watcher.isAlive()) {
				offer("Q\n");
			}
		}
		deleteScripts();
		return true;
	}

	/**
	 * Delete the scripts, and their directory unless a container's cidfile is still in
	 * it.
	 */
	private synchronized void deleteScripts() {
		if (this.directory != null) {
			try {
				for (String name : this.written.keySet()) {
					Files.deleteIfExists(this.directory.resolve(name + ".sh"));
				}
				Files.deleteIfExists(this.directory);
			}
			catch (IOException ex) {
				// not empty, or left for the temporary directory's own cleaning
			}
		}
	}

}

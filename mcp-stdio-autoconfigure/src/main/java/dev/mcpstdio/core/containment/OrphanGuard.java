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
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.core.support.Threads;
import dev.mcpstdio.core.tree.Platform;
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

	/** The watcher, started with the host's first server. */
	private @Nullable GuardWatcher watcher;

	private @Nullable Thread writer;

	private boolean overflowReported;

	/** Whether the host closed: the writer ends once it handed over what is queued. */
	private volatile boolean closed;

	/** The files of the reaper scripts, and of containers' cidfiles. */
	private final ReaperScripts scripts = new ReaperScripts();

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
				this.writer = Threads.daemon(this::writeLines, "mcp-stdio-orphan-guard");
				this.writer.start();
			}
			if (this.watcher == null || !this.watcher.isAlive()) {
				// Guarded before the start returns: a new watcher learns every server,
				// this one included
				this.lines.clear();
				this.watcher = startWatcher();
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
		if (!this.enabled || script == null) {
			return;
		}
		try {
			Path file = this.scripts.write(name, script);
			if (file != null) {
				announce(file);
			}
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
	@Nullable Path privateDirectory() {
		return this.enabled ? this.scripts.directory() : null;
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
			GuardWatcher current;
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
					if (!this.known.isEmpty() && this.enabled) {
						// it learns every server still known, so this line is not needed
						this.watcher = startWatcher();
						continue;
					}
				}
				current = this.watcher;
			}
			if (line != null && !line.isEmpty() && current != null) {
				try {
					current.write(line);
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
	 * @return the watcher, or {@code null} when it could not start
	 */
	private @Nullable GuardWatcher startWatcher() {
		try {
			// A watcher killed by someone is replaced at once, not at the next server
			// start
			return GuardWatcher.start(this.platform, this.application,
					String.join("", this.reapers) + String.join("", this.known.values()), () -> this.lines.offer(""));
		}
		catch (IOException ex) {
			logger.warn("Could not start the MCP server orphan guard; servers may outlive a killed JVM: "
					+ ex.getMessage());
			this.enabled = false;
			return null;
		}
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
		this.scripts.delete();
		return true;
	}

}

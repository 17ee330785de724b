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

import java.time.Instant;
import java.util.Optional;

import dev.mcpstdio.core.tree.ProcessTable.Proc;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * How a scanner signals a process: only while it is the process a snapshot read, through
 * a pidfd where the kernel has them, else by pid right after a fresh proof.
 *
 * @author mcp-stdio authors
 */
final class ProcessSignals {

	// logged under the scanner's name, as the way signals go always was
	private static final Log logger = LogFactory.getLog(ProcessScanner.class);

	private static final @Nullable Pidfds SYSTEM_PIDFDS = loadPidfds();

	private final Platform platform;

	private final ProcReader proc;

	/** How signals reach a process: through pidfds, or {@code null} by pid. */
	private final @Nullable Pidfds pidfds;

	private ProcessSignals(Platform platform, ProcReader proc, @Nullable Pidfds pidfds) {
		this.platform = platform;
		this.proc = proc;
		this.pidfds = pidfds;
	}

	/**
	 * Return the signals of a scanner.
	 * @param platform what the OS offers
	 * @param proc the reader of {@code /proc}, used where the platform has it
	 * @param pidfds whether to hold processes by pidfd where the kernel has them
	 * @return the signals
	 */
	static ProcessSignals of(Platform platform, ProcReader proc, boolean pidfds) {
		return new ProcessSignals(platform, proc, pidfds ? SYSTEM_PIDFDS : null);
	}

	/**
	 * Open a pidfd of the process that has a pid now, where the kernel has them.
	 * @param pid the process
	 * @return the pidfd, or {@code null} when the process is gone, pidfds are not used,
	 * or none could be opened (out of descriptors): then a signal goes by pid
	 */
	Pidfds.@Nullable Pidfd hold(long pid) {
		Pidfds pidfds = this.pidfds;
		if (pidfds == null) {
			return null;
		}
		try {
			return pidfds.open(pid);
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	/**
	 * Send SIGTERM or SIGKILL to a process, but only while it is the process read: a pid
	 * reused since is left alone. Start time, parent, group and session are checked after
	 * the handle is taken, and the JDK refuses to signal a handle whose process has
	 * changed.
	 */
	boolean signal(Proc proc, boolean kill) {
		Optional<ProcessHandle> handle = ProcessHandle.of(proc.pid());
		if (handle.isEmpty() || (proc.startTime() != 0 && !isStill(proc))) {
			return false;
		}
		return kill ? handle.get().destroyForcibly() : handle.get().destroy();
	}

	/**
	 * Return whether a pid still shows the process read: its start time, and where
	 * {@code /proc} tells them its parent, group and session, which a stranger born in
	 * the same clock tick does not share.
	 */
	private boolean isStill(Proc proc) {
		if (!this.platform.hasProcFileSystem() || proc.pgid() < 0) {
			return startTimeOf(proc.pid()) == proc.startTime();
		}
		ProcReader.Stat stat = this.proc.stat(proc.pid());
		// the same pid, start time, parent, group and session
		return stat != null && !stat.isZombie() && stat.startTime() == proc.startTime()
				&& stat.ids().equals(proc.ids());
	}

	/**
	 * Return when a live process started: clock ticks since boot from {@code /proc}, else
	 * epoch milliseconds.
	 * @param pid the process
	 * @return its start time, 0 when unknown, -1 when it is gone or a zombie
	 */
	long startTimeOf(long pid) {
		if (this.platform.hasProcFileSystem()) {
			ProcReader.Stat stat = this.proc.stat(pid);
			return (stat == null || stat.isZombie()) ? -1 : stat.startTime();
		}
		return ProcessHandle.of(pid).map(ProcessSignals::startMillis).orElse(-1L);
	}

	/**
	 * Return when a process started, as {@link ProcessHandle} tells it.
	 * @param handle the process
	 * @return epoch milliseconds, 0 when unknown
	 */
	static long startMillis(ProcessHandle handle) {
		return handle.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
	}

	/**
	 * Return how this JVM signals, decided once with one line that says which way signals
	 * go: through pidfds, or {@code null} by pid.
	 */
	private static @Nullable Pidfds loadPidfds() {
		String way = "Signals to MCP server processes go by pid, each right after a fresh proof that the process "
				+ "is the server's";
		if (!System.getProperty("os.name", "").startsWith("Linux")) {
			if (logger.isDebugEnabled()) {
				logger.debug(way + " (no pidfds on " + System.getProperty("os.name") + ")");
			}
			return null;
		}
		try {
			Pidfds pidfds = Pidfds.load();
			if (logger.isDebugEnabled()) {
				logger.debug("Signals to MCP server processes go through pidfds, each opened while the process was "
						+ "proven the server's");
			}
			return pidfds;
		}
		catch (RuntimeException | LinkageError ex) {
			// JNA absent or unable to load its library, a kernel before 5.3 (ENOSYS),
			// a seccomp filter (EPERM)
			logger.info(way + ": pidfds are not available (" + ex + ")");
			return null;
		}
	}

}

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

package dev.mcpstdio.core.server;

import java.util.List;

import dev.mcpstdio.McpStdioException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The end of one server process, told once by whoever saw it first.
 *
 * @author mcp-stdio authors
 */
final class ExitSequence {

	private static final Log logger = LogFactory.getLog(ExitSequence.class);

	private final StdioServerProcess server;

	private final Process process;

	private final ProcessParts parts;

	ExitSequence(StdioServerProcess server) {
		this.server = server;
		this.process = server.process;
		this.parts = server.parts;
	}

	/**
	 * Read what the ended root wrote last, each stream as far as it can be read now.
	 * @param exited a {@link System#nanoTime()} after the root's exit was known
	 */
	private void readLastOutput(long exited) {
		// What stderr holds now is all the process wrote; the rest, a child's, is read to
		// its end on a thread of its own: the child may hold it open
		this.server.pipes.finishStderr();
		// stdout is read until its reader sleeps on the empty pipe, not to its end; a
		// pipe that nobody holds is only late because the machine is busy. Any read of
		// the processes begun since the exit tells who holds it: the exits of a
		// shutdown share one (each read opens every process of the machine)
		if (!this.server.pipes.awaitStdoutDrained(ShutdownTimeouts.STREAM_GRACE.toMillis())
				&& this.server.tree.members(this.parts.trees().scanner().scan(exited)).isEmpty()) {
			this.server.pipes.awaitStdoutEnd(ShutdownTimeouts.LATE_STREAM.toMillis());
		}
	}

	/**
	 * The end of the process, told once, by whoever saw it first: the root reaped and
	 * forgotten by the guard, its last output read, its exit classified, then the
	 * listener, the exit's future, the writes and the requests still waiting told, and
	 * what it left behind ended.
	 */
	void run() {
		// From now on the root's pid may be reused: the guard forgets it first
		this.parts.trees().scanner().invalidate();
		this.parts.guard().ended(this.server.pid());
		long exited = System.nanoTime();
		int code = this.process.exitValue();
		readLastOutput(exited);
		List<String> tail = this.server.pipes.stderrLines();
		ExitInfo exitInfo = new ExitInfo(this.server.name(), this.server.pid(), code, this.server.classify(code), tail,
				this.server.classifier.reason())
			.after(this.server.uptime(), this.server.classifier.startupHint(tail, this.server.containment::hint));
		boolean expected = this.server.classifier.stopRequested && !exitInfo.cause().isFailure();
		RequestLedger.Ended requests = this.server.ledger.closeAll();
		List<InFlightRequest> unanswered = requests.unanswered();
		if (!this.server.classifier.stopRequested) {
			logger.warn(
					exitInfo.withoutHint() + " (pid " + this.server.pid() + ", after " + this.server.uptime().toMillis()
							+ " ms)" + ((exitInfo.hint() != null) ? "\n" + exitInfo.hint() : ""));
		}
		// the observations of the requests the listener awaited end before it learns
		requests.failUnanswered(exitInfo::toException);
		// The listener (the server's state, its counts, the client) learns first, so that
		// whoever sees the exit sees it counted
		try {
			this.server.listener.onExit(exitInfo, unanswered);
		}
		catch (RuntimeException ex) {
			logger.error("Listener of " + McpStdioException.describe(this.server.name()) + " failed on its exit", ex);
		}
		this.server.exit.complete(exitInfo);
		this.server.pipes.closeStdin(() -> expected ? this.server.notRunning("was stopped before the message was sent")
				: exitInfo.toException());
		requests.failAwaited((id) -> expected ? this.server.notRunning("was stopped before it answered request " + id)
				: exitInfo.toException());
		if (!this.server.classifier.stopRequested) {
			// The leader is gone; whatever it left behind goes with it
			this.server.terminateTree("exited and left processes behind", System.nanoTime());
		}
	}

}

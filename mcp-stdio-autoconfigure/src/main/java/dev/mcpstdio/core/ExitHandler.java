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

package dev.mcpstdio.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.core.PendingRequests.Pending;
import dev.mcpstdio.core.io.StderrTail;
import dev.mcpstdio.core.io.StdinWriter;
import dev.mcpstdio.core.io.StdoutReader;
import dev.mcpstdio.core.process.ProcessTree;
import dev.mcpstdio.core.process.TreeTerminator;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The end of one server process, told once: the root reaped and forgotten by the guard,
 * the rest of its output read, its exit classified, then its listener, the exit's future,
 * the writes and the requests still waiting told, and what it left behind ended.
 *
 * @author mcp-stdio authors
 */
final class ExitHandler {

	private static final Log logger = LogFactory.getLog(ExitHandler.class);

	private final String name;

	private final Process process;

	private final ProcessTree tree;

	private final ServerRuntime runtime;

	private final StderrTail stderr;

	private final StdoutReader stdout;

	private final StdinWriter writer;

	private final PendingRequests pending;

	private final ExitClassifier classifier;

	private final MessageListener listener;

	private final CompletableFuture<ExitInfo> exit;

	/** Ends the process tree, for the reason given. */
	private final Consumer<String> terminateTree;

	private final long startNanos = System.nanoTime();

	ExitHandler(String name, Process process, ProcessTree tree, ServerRuntime runtime, StderrTail stderr,
			StdoutReader stdout, StdinWriter writer, PendingRequests pending, ExitClassifier classifier,
			MessageListener listener, CompletableFuture<ExitInfo> exit, Consumer<String> terminateTree) {
		this.name = name;
		this.process = process;
		this.tree = tree;
		this.runtime = runtime;
		this.stderr = stderr;
		this.stdout = stdout;
		this.writer = writer;
		this.pending = pending;
		this.classifier = classifier;
		this.listener = listener;
		this.exit = exit;
		this.terminateTree = terminateTree;
	}

	/**
	 * Tell everyone that the process ended: called once, by whoever saw the exit first.
	 */
	void handle() {
		// From now on the root's pid may be reused: the guard forgets it before anyone
		// learns of the exit
		this.runtime.scanner().invalidate();
		this.runtime.guard().ended(pid());
		int code = this.process.exitValue();
		// What stderr holds now is all the process wrote; the rest, a child's, is read
		// to its end on a thread of its own: the child may hold it open
		this.runtime.stderrPoller().remove(this.stderr);
		this.stderr.drain();
		this.stderr.finish(this.runtime.tasks());
		awaitStdout();
		List<String> stderrTail = this.stderr.lines();
		ExitInfo exitInfo = new ExitInfo(this.name, pid(), code, classify(code), Instant.now(), uptime(), stderrTail,
				this.classifier.reason(), this.classifier.startupHint(stderrTail));
		boolean expected = this.classifier.stopRequested() && !exitInfo.cause().isFailure();
		List<Pending> requests = this.pending.drainAll();
		List<Object> unanswered = new ArrayList<>();
		for (Pending request : requests) {
			if (request.future() == null) {
				unanswered.add(request.id());
			}
		}
		if (!this.classifier.stopRequested()) {
			logger.warn(exitInfo.withoutHint() + " (pid " + pid() + ", after " + uptime().toMillis() + " ms)"
					+ ((exitInfo.hint() != null) ? "\n" + exitInfo.hint() : ""));
		}
		// The listener (the server's state, its counts, the client) learns first, so
		// that whoever sees the exit sees it counted
		try {
			this.listener.onExit(exitInfo, unanswered);
		}
		catch (RuntimeException ex) {
			logger.error("Listener of MCP server '" + this.name + "' failed on its exit", ex);
		}
		this.exit.complete(exitInfo);
		this.writer.close(
				(write) -> expected ? notRunning("was stopped before the message was sent") : exitInfo.toException());
		for (Pending request : requests) {
			if (request.future() != null) {
				request.future()
					.completeExceptionally(
							expected ? notRunning("was stopped before it answered request " + request.id())
									: exitInfo.toException());
			}
		}
		if (!this.classifier.stopRequested()) {
			// The leader is gone; whatever it left behind goes with it
			this.terminateTree.accept("exited and left processes behind");
		}
	}

	/**
	 * Wait for the exit at the end of a stop, bounded by {@link #FINAL_EXIT_WAIT}; when
	 * it is not observed by then, report what is known.
	 * @return the exit
	 */
	ExitInfo awaitAfterStop() {
		this.runtime.exits().check(this.process);
		ExitInfo exitInfo = await(ShutdownTimeouts.FINAL_EXIT_WAIT.toMillis());
		if (exitInfo != null) {
			return exitInfo;
		}
		int code = this.process.isAlive() ? -1 : this.process.exitValue();
		return new ExitInfo(this.name, pid(), code, classify(code), Instant.now(), uptime(), this.stderr.lines(),
				(code == -1) ? "the process survived SIGKILL" : this.classifier.reason());
	}

	/**
	 * Wait, bounded, for the exit to be observed.
	 * @param millis the longest wait
	 * @return the exit, or {@code null} when it was not observed in time (or the wait was
	 * interrupted, the interrupt restored)
	 */
	@Nullable ExitInfo await(long millis) {
		try {
			return this.exit.get(millis, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
		catch (ExecutionException | TimeoutException ex) {
			return null;
		}
	}

	/**
	 * Wait, bounded, until stdout delivered what the process wrote. A pipe that a
	 * surviving child holds open is not waited for to its end: what the process wrote is
	 * in it already, so the wait ends once its reader sleeps on the empty pipe. A pipe
	 * that nobody holds is only late because the machine is busy, and is given longer.
	 */
	private void awaitStdout() {
		boolean drained = this.stdout.awaitDrained(ShutdownTimeouts.STREAM_GRACE.toMillis());
		if (!drained && this.tree.members(this.runtime.scanner().scan()).isEmpty()) {
			this.stdout.awaitEnd(ShutdownTimeouts.LATE_STREAM.toMillis());
		}
	}

	private ExitCause classify(int code) {
		return this.classifier.classify(code, this.writer::isClosing);
	}

	private long pid() {
		return this.process.pid();
	}

	private Duration uptime() {
		return Duration.ofNanos(System.nanoTime() - this.startNanos);
	}

	private McpServerNotRunningException notRunning(String what) {
		return new McpServerNotRunningException(this.name, "MCP server '" + this.name + "' " + what);
	}

}

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

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.support.Waits;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The stop of one server process: the contract's four steps, each bounded, the stops of a
 * shutdown looking at their trees together.
 *
 * @author mcp-stdio authors
 */
final class StopSequence {

	private static final Log logger = LogFactory.getLog(StopSequence.class);

	private final StdioServerProcess server;

	private final Process process;

	private final ProcessParts parts;

	private final ShutdownTimeouts timeouts;

	StopSequence(StdioServerProcess server) {
		this.server = server;
		this.process = server.process;
		this.parts = server.parts;
		this.timeouts = server.spec.shutdown();
	}

	/**
	 * Run the stop: step 1 drains, step 2 closes stdin, step 3 gives the root time to
	 * exit, step 4 ends what is left of the tree. A step that fails is logged and the
	 * later steps run anyway.
	 * @param wasRunning whether the process ran when the stop began
	 * @return how it went
	 */
	StdioServerProcess.StopResult run(boolean wasRunning) {
		long begin = System.nanoTime();
		ShutdownTimeouts timeouts = this.timeouts;
		RuntimeException failed = null;
		StopCohort cohort = this.parts.cohort();
		cohort.join();
		long waitEnd;
		try {
			try {
				drain(wasRunning, begin + timeouts.drain().toNanos());
			}
			catch (RuntimeException ex) {
				failed = ex;
			}
			waitEnd = System.nanoTime() + timeouts.stdinClose().toNanos();
			try {
				this.server.stopSteps.accept(StdioServerProcess.Step.CLOSE_STDIN);
				closeStdinAndWait(timeouts.stdinClose());
			}
			catch (RuntimeException ex) {
				failed = add(failed, ex);
			}
		}
		finally {
			cohort.leave();
		}
		boolean exited = !this.process.isAlive();
		// A snapshot that began after this moment shows what the root left behind
		long exitSeen = System.nanoTime();
		if (exited) {
			// Seen here first: the exit is handled while the tree is looked at
			this.parts.exits().check(this.process);
			// Within step 3's bound: the stops that run together share one snapshot
			cohort.awaitOthers(waitEnd);
		}
		String why = exited ? "left processes behind after its root process exited"
				: "did not exit within " + Waits.format(timeouts.stdinClose()) + " after stdin closed";
		RuntimeException terminateFailed = terminate(why, exited ? exitSeen : System.nanoTime());
		if (terminateFailed != null) {
			failed = add(failed, terminateFailed);
		}
		return stopped(begin, wasRunning, failed);
	}

	/** The end of a stop: the exit awaited, within its bound, and how the stop went. */
	private StdioServerProcess.StopResult stopped(long begin, boolean wasRunning, @Nullable RuntimeException failed) {
		ExitInfo exitInfo = awaitExitAfterStop();
		Duration took = Duration.ofNanos(System.nanoTime() - begin);
		String server = McpStdioException.describe(this.server.name()) + " (pid " + this.server.pid() + ")";
		if (failed != null) {
			logger.error("Stopping " + server + " failed in a step; the later steps ran anyway", failed);
		}
		if (wasRunning) {
			logger.info("Stopped " + server + ": " + exitInfo.cause() + ", exit code " + exitInfo.describeExitCode()
					+ ", in " + took.toMillis() + " ms");
		}
		return new StdioServerProcess.StopResult(exitInfo, took, wasRunning);
	}

	/** Step 1: refuse new sends, let in-flight writes and sent requests finish. */
	private void drain(boolean wasRunning, long deadline) {
		this.server.stopSteps.accept(StdioServerProcess.Step.DRAIN);
		if (wasRunning) {
			this.server.ledger.signal();
			this.server.pipes.awaitWritten(deadline);
			this.server.ledger.awaitEmpty(deadline);
		}
	}

	/**
	 * Step 4: end the tree; when that fails, once more, then at least the root and the
	 * descendants the JDK sees, so that the tree does not outlive a failed step.
	 * @return why the step failed, or {@code null}
	 */
	private @Nullable RuntimeException terminate(String why, long freshSince) {
		try {
			this.server.stopSteps.accept(StdioServerProcess.Step.TERMINATE);
			this.server.terminateTree(why, freshSince);
			return null;
		}
		catch (RuntimeException ex) {
			try {
				this.server.terminateTree(why, System.nanoTime());
			}
			catch (RuntimeException again) {
				ex.addSuppressed(again);
				this.process.descendants().forEach(ProcessHandle::destroyForcibly);
				this.process.destroyForcibly();
			}
			return ex;
		}
	}

	/** Steps 2 and 3: close stdin after the last write, then give it time to exit. */
	private void closeStdinAndWait(Duration bound) {
		long stepBegin = System.nanoTime();
		try {
			this.server.pipes.closeStdin(() -> this.server.notRunning("was stopped before the message was sent"));
			if (!this.server.pipes.isWriting()) {
				this.server.pipes.stdinClosed().get(bound.toNanos(), TimeUnit.NANOSECONDS);
				this.server.classifier.stdinClosedByStop = true;
			}
			// returns at once when it has exited or the bound is spent
			this.process.waitFor(bound.toNanos() - (System.nanoTime() - stepBegin), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			// stdin could not be closed in time: go on to the signals
		}
	}

	private static RuntimeException add(@Nullable RuntimeException first, RuntimeException next) {
		if (first == null) {
			return next;
		}
		first.addSuppressed(next);
		return first;
	}

	/**
	 * Wait for the exit at the end of a stop, bounded; when it is not observed by then,
	 * report what is known.
	 */
	private ExitInfo awaitExitAfterStop() {
		this.parts.exits().check(this.process);
		ExitInfo exitInfo = this.server.awaitExit(ShutdownTimeouts.FINAL_EXIT_WAIT.toMillis());
		if (exitInfo != null) {
			return exitInfo;
		}
		int code = this.process.isAlive() ? -1 : this.process.exitValue();
		return new ExitInfo(this.server.name(), this.server.pid(), code, this.server.classify(code),
				this.server.pipes.stderrLines(),
				(code == -1) ? "the process survived SIGKILL" : this.server.classifier.reason())
			.after(this.server.uptime(), null);
	}

}

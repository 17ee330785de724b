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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.mcpstdio.core.support.Durations;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The contract's four steps of one stop, each bounded: drain (in-flight writes finish,
 * sent requests get their answers), close stdin after the last write, wait for the
 * process to exit by itself, then SIGTERM and SIGKILL to what is left of its tree. A step
 * that fails is logged and the later steps run anyway: the tree is always ended and the
 * exit always awaited.
 *
 * @author mcp-stdio authors
 */
final class StopSequence {

	private static final Log logger = LogFactory.getLog(StopSequence.class);

	private final Target target;

	private final StepListener steps;

	private final StopCohort cohort;

	StopSequence(Target target, StepListener steps, StopCohort cohort) {
		this.target = target;
		this.steps = steps;
		this.cohort = cohort;
	}

	/**
	 * Stop the process.
	 * @param wasRunning whether it ran when the stop began: one that had already ended
	 * costs no waiting and logs no line
	 * @return how it went
	 */
	StopResult run(boolean wasRunning) {
		long begin = System.nanoTime();
		ShutdownTimeouts timeouts = this.target.timeouts();
		Process process = this.target.process();
		RuntimeException failed = null;
		long waitEnd;
		this.cohort.join();
		try {
			try {
				this.steps.entering(Step.DRAIN);
				if (wasRunning) {
					this.target.drain(begin + timeouts.drain().toNanos());
				}
			}
			catch (RuntimeException ex) {
				failed = ex;
			}
			waitEnd = System.nanoTime() + timeouts.stdinClose().toNanos();
			try {
				this.steps.entering(Step.CLOSE_STDIN);
				closeStdinAndWait(process, timeouts.stdinClose());
			}
			catch (RuntimeException ex) {
				failed = add(failed, ex);
			}
		}
		finally {
			this.cohort.leave();
		}
		boolean exited = !process.isAlive();
		// A snapshot that began after this moment shows what the root left behind
		long exitSeen = System.nanoTime();
		if (exited) {
			// Seen here first: the exit is handled while the tree is looked at
			this.target.exited();
			// Within step 3's bound: the stops that run together share one snapshot
			this.cohort.awaitOthers(waitEnd);
		}
		String why = exited ? "left processes behind after its root process exited"
				: "did not exit within " + Durations.format(timeouts.stdinClose()) + " after stdin closed";
		try {
			this.steps.entering(Step.TERMINATE);
			this.target.terminateTree(why, exited ? exitSeen : System.nanoTime());
		}
		catch (RuntimeException ex) {
			failed = add(failed, ex);
			// The tree must not outlive a failed step: try once more, then at least
			// the root and the descendants the JDK sees go
			try {
				this.target.terminateTree(why, System.nanoTime());
			}
			catch (RuntimeException again) {
				failed.addSuppressed(again);
				process.descendants().forEach(ProcessHandle::destroyForcibly);
				process.destroyForcibly();
			}
		}
		ExitInfo exit = this.target.awaitExit();
		Duration took = Duration.ofNanos(System.nanoTime() - begin);
		String server = "MCP server '" + this.target.name() + "' (pid " + this.target.pid() + ")";
		if (failed != null) {
			logger.error("Stopping " + server + " failed in a step; the later steps ran anyway", failed);
		}
		if (wasRunning) {
			logger.info("Stopped " + server + ": " + exit.cause() + ", exit code " + exit.describeExitCode() + ", in "
					+ took.toMillis() + " ms");
		}
		return new StopResult(exit, took, wasRunning);
	}

	/** Steps 2 and 3: close stdin after the last write, then give it time to exit. */
	private void closeStdinAndWait(Process process, Duration bound) {
		long stepBegin = System.nanoTime();
		try {
			this.target.closeStdin(bound);
			long left = bound.toNanos() - (System.nanoTime() - stepBegin);
			if (left > 0 && process.isAlive()) {
				process.waitFor(left, TimeUnit.NANOSECONDS);
			}
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

	/** The steps of a stop. */
	enum Step {

		DRAIN, CLOSE_STDIN, TERMINATE

	}

	/** Learns each step of a stop as it begins. */
	interface StepListener {

		void entering(Step step);

	}

	/** The process being stopped, as the steps need it. */
	interface Target {

		String name();

		long pid();

		Process process();

		ShutdownTimeouts timeouts();

		/**
		 * Step 1: refuse new sends, let in-flight writes and sent requests finish.
		 * @param deadlineNanos the {@link System#nanoTime()} to give up at
		 */
		void drain(long deadlineNanos);

		/**
		 * Step 2: close stdin once no write is under way, failing queued writes.
		 * @param bound how long the close may take
		 * @throws InterruptedException if interrupted
		 * @throws ExecutionException if the close failed
		 * @throws TimeoutException if a write kept it open too long
		 */
		void closeStdin(Duration bound) throws InterruptedException, ExecutionException, TimeoutException;

		/**
		 * Step 4: SIGTERM, wait, SIGKILL, to every process of the tree.
		 * @param why what led here, for the log line
		 * @param freshSince the {@link System#nanoTime()} after which the first snapshot
		 * of the tree must have begun: once the root was seen exited, a snapshot begun
		 * after that shows all it left behind
		 */
		void terminateTree(String why, long freshSince);

		/**
		 * Say that the process has been seen to end, so that its exit is handled now.
		 */
		void exited();

		/**
		 * Wait, bounded, for the exit to be observed.
		 * @return the exit, or what is known of it
		 */
		ExitInfo awaitExit();

	}

}

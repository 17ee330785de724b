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

/**
 * The stops of an application's shutdown, which run together: a stop whose root process
 * has exited looks at its tree once the other stops are past waiting for their roots too,
 * so that one read of every process serves them all instead of one read per exit while
 * the others still need the CPU to exit.
 *
 * @author mcp-stdio authors
 */
final class StopCohort {

	/** A stop on its own: it waits for no one. */
	static final StopCohort NONE = new StopCohort(false);

	private final boolean together;

	private final Object lock = new Object();

	/** Stops that joined and have not yet finished step 3; guarded by {@link #lock}. */
	private int waiting;

	private StopCohort(boolean together) {
		this.together = together;
	}

	/**
	 * Create the cohort of stops that run together.
	 * @return a new cohort
	 */
	static StopCohort together() {
		return new StopCohort(true);
	}

	/** A stop begins: until it {@link #leave() leaves}, the others wait for it. */
	void join() {
		if (this.together) {
			synchronized (this.lock) {
				this.waiting++;
			}
		}
	}

	/** A stop is past step 3: its root has exited, or it waited as long as it may. */
	void leave() {
		if (this.together) {
			synchronized (this.lock) {
				this.waiting--;
				if (this.waiting <= 0) {
					this.lock.notifyAll();
				}
			}
		}
	}

	/**
	 * Wait until every stop that joined has left, or until the deadline. That costs a
	 * stop nothing it would not have spent anyway: the deadline is that of its own step
	 * 3, and the shutdown lasts as long as its slowest server.
	 * @param deadlineNanos the {@link System#nanoTime()} to give up at
	 * @return whether the others left in time
	 */
	boolean awaitOthers(long deadlineNanos) {
		if (!this.together) {
			return true;
		}
		boolean interrupted = false;
		try {
			synchronized (this.lock) {
				while (this.waiting > 0) {
					long left = deadlineNanos - System.nanoTime();
					if (left <= 0 || interrupted) {
						return false;
					}
					try {
						this.lock.wait(Math.max(1, left / 1_000_000L));
					}
					catch (InterruptedException ex) {
						interrupted = true;
					}
				}
				return true;
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

}

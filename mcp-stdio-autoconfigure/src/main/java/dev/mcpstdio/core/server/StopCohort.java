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

import dev.mcpstdio.core.support.Threads;

/**
 * The stops under way, so that a stop whose root exited looks at its tree with theirs.
 *
 * @author mcp-stdio authors
 */
final class StopCohort {

	// One read of every process then serves them all, instead of one read per exit
	// while the others still need the CPU to exit.

	private final Object lock = new Object();

	/**
	 * Stops that joined and have not yet finished step 3; guarded by {@link #lock}.
	 */
	private int waiting;

	/** A stop begins: until it {@link #leave() leaves}, the others wait for it. */
	void join() {
		synchronized (this.lock) {
			this.waiting++;
		}
	}

	/** A stop is past step 3: its root has exited, or it waited as long as it may. */
	void leave() {
		synchronized (this.lock) {
			this.waiting--;
			if (this.waiting <= 0) {
				this.lock.notifyAll();
			}
		}
	}

	/**
	 * Wait until every stop that joined has left, or until the deadline, that of the
	 * caller's own step 3: it costs a stop no more than that step's bound.
	 * @param deadlineNanos the {@link System#nanoTime()} to give up at
	 * @return whether the others left in time
	 */
	boolean awaitOthers(long deadlineNanos) {
		return Threads.awaitOn(this.lock, deadlineNanos, Long.MAX_VALUE, () -> this.waiting <= 0);
	}

}

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

package dev.mcpstdio.bench.transport;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What the transport benchmark's scenarios left behind: each is checked once it ends, and
 * what it left is killed by pid and counted.
 *
 * @author mcp-stdio authors
 */
final class Leftovers {

	/** Processes the harness had to kill by pid after a scenario. */
	private static final AtomicLong killed = new AtomicLong();

	private Leftovers() {
	}

	/**
	 * Assert that the scenario left no process behind: wait a little for exits in
	 * progress, then kill by pid what is left and report it.
	 * @param markers the scenario's markers
	 * @param scenario its name, for the report
	 * @return how many processes had to be killed
	 * @throws InterruptedException if interrupted
	 */
	static int after(Markers markers, String scenario) throws InterruptedException {
		if (markers.awaitNone(5_000) >= 0) {
			return 0;
		}
		int left = markers.killLeftovers();
		killed.addAndGet(left);
		System.out.println("LEFTOVERS after " + scenario + ": killed " + left + " processes");
		return left;
	}

	/**
	 * Return how many processes were killed after all scenarios so far.
	 * @return the count
	 */
	static long total() {
		return killed.get();
	}

}

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

import dev.mcpstdio.core.process.TreeTerminator;

/**
 * The bounds of the shutdown steps of one MCP server.
 *
 * @param drain how long in-flight sends and requests may take to finish (step 1)
 * @param stdinClose how long to wait for the process to exit after its stdin closed
 * (steps 2 and 3)
 * @param terminate how long to wait after SIGTERM before SIGKILL (step 4)
 * @author mcp-stdio authors
 */
public record ShutdownTimeouts(Duration drain, Duration stdinClose, Duration terminate) {

	/** The contract's defaults: 5s, 2s and 2s. */
	public static final ShutdownTimeouts DEFAULTS = new ShutdownTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(2),
			Duration.ofSeconds(2));

	public ShutdownTimeouts {
		requirePositive(drain, "drain");
		requirePositive(stdinClose, "stdinClose");
		requirePositive(terminate, "terminate");
	}

	private static void requirePositive(Duration duration, String name) {
		if (duration == null || duration.isNegative() || duration.isZero()) {
			throw new IllegalArgumentException(name + " timeout must be positive");
		}
	}

	/**
	 * Return the longest a whole stop can take: drain, stdin close, step 4 (whose first
	 * look at the tree may wait for a process caught in {@code exec}, at most 250 ms and
	 * at most {@code terminate}, counted here as a whole {@code terminate}, before the
	 * SIGTERM wait of {@code terminate}), the wait for SIGKILLed processes to vanish, and
	 * the final wait for the exit to be observed.
	 * @return the worst case of one stop
	 */
	public Duration worstCase() {
		return this.drain.plus(this.stdinClose)
			.plus(this.terminate.multipliedBy(2))
			.plus(TreeTerminator.KILL_WAIT)
			.plus(StdioServerProcess.FINAL_EXIT_WAIT);
	}

}

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

/**
 * The bounds of the shutdown steps of one MCP server: drain, stdin close, terminate.
 *
 * @author mcp-stdio authors
 */
public record ShutdownTimeouts(Duration drain, Duration stdinClose, Duration terminate) {

	/** How long SIGKILLed processes may take to vanish before a stop stops waiting. */
	public static final Duration KILL_WAIT = Duration.ofSeconds(2);

	/** How long an exit waits for stdout and stderr to deliver what the process wrote. */
	static final Duration STREAM_GRACE = Duration.ofMillis(300);

	/** How much longer a pipe that no live process holds may take to reach its end. */
	static final Duration LATE_STREAM = Duration.ofSeconds(2);

	/**
	 * The last wait of a stop, for the exit to be observed once the tree was ended: the
	 * exit of a SIGKILLed root, then its output read, twice over.
	 */
	static final Duration FINAL_EXIT_WAIT = KILL_WAIT.plus(STREAM_GRACE.plus(LATE_STREAM).multipliedBy(2))
		.plusSeconds(1);

	public ShutdownTimeouts {
		requirePositive(drain, "drain timeout");
		requirePositive(stdinClose, "stdinClose timeout");
		requirePositive(terminate, "terminate timeout");
	}

	static void requirePositive(Duration duration, String name) {
		if (duration == null || duration.isNegative() || duration.isZero()) {
			throw new IllegalArgumentException(name + " must be positive");
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
			.plus(KILL_WAIT)
			.plus(FINAL_EXIT_WAIT);
	}

}

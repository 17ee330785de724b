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

package dev.mcpstdio.lifecycle;

import java.time.Duration;

import dev.mcpstdio.core.server.ExitInfo;

/**
 * When and how often a server that ended unexpectedly is started again.
 *
 * @author mcp-stdio authors
 */
public record RestartPolicy(Mode mode, int maxRestarts, Duration window, Duration initialBackoff, Duration maxBackoff) {

	// At most maxRestarts within the sliding window, each after a backoff that doubles
	// from initialBackoff up to maxBackoff.

	/**
	 * Return whether a process that ended on its own while it was meant to run is started
	 * again.
	 * @param exit how it ended
	 * @return whether to restart
	 */
	public boolean shouldRestart(ExitInfo exit) {
		return switch (this.mode) {
			case NEVER -> false;
			case ON_FAILURE -> exit.exitCode() != 0 || exit.failure() != null;
			case ALWAYS -> true;
		};
	}

	/**
	 * Return the wait before restart number {@code attempt} (1 for the first).
	 * @param attempt the attempt within the window
	 * @return the backoff
	 */
	public Duration backoff(int attempt) {
		long millis = this.initialBackoff.toMillis();
		for (int i = 1; i < attempt && millis < this.maxBackoff.toMillis(); i++) {
			millis *= 2;
		}
		return Duration.ofMillis(Math.min(millis, this.maxBackoff.toMillis()));
	}

	/**
	 * When a server is restarted.
	 */
	public enum Mode {

		/** Never: an unexpected end leaves it {@code FAILED}. */
		NEVER,

		/** When it ended with a non-zero exit code or was killed by a signal. */
		ON_FAILURE,

		/** Whenever it ended while it was meant to run. */
		ALWAYS

	}

}

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

/**
 * How one stop of a server went.
 *
 * @param exit how its process ended
 * @param duration from step 1 to the last process gone
 * @param wasRunning whether the process was still running when the stop began
 * @author mcp-stdio authors
 */
public record StopResult(ExitInfo exit, Duration duration, boolean wasRunning) {

	/**
	 * Return the outcome, the cause of the exit.
	 * @return the outcome
	 */
	public ExitCause outcome() {
		return this.exit.cause();
	}

}

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

/**
 * Why a server's process ended.
 *
 * @author mcp-stdio authors
 */
public enum ExitCause {

	/** Exit code 0 after its stdin was closed by a stop. */
	CLEAN,

	/** Ended on its own while it was expected to run, or with a failure code on stop. */
	UNEXPECTED,

	/** Ended by the SIGTERM of shutdown step 4. */
	TERMINATED,

	/** Ended by SIGKILL. */
	KILLED,

	/** Stopped by mcp-stdio after its {@code idle-timeout}: not a failure. */
	IDLE,

	/**
	 * Stopped by mcp-stdio for using more resident memory than its {@code max-memory}.
	 */
	MEMORY_LIMIT,

	/** Stopped by mcp-stdio for running more processes than its {@code max-processes}. */
	PROCESS_LIMIT;

	/**
	 * Return whether the end is a failure of the server that its callers are told as one:
	 * it ended on its own, or was stopped for going over a limit.
	 * @return whether it is a failure
	 */
	public boolean isFailure() {
		return this == UNEXPECTED || this == MEMORY_LIMIT || this == PROCESS_LIMIT;
	}

}

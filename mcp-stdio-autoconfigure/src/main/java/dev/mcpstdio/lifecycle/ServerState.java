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

/**
 * The state of one configured MCP server.
 *
 * @author mcp-stdio authors
 */
public enum ServerState {

	/** Its process is being started. */
	STARTING,

	/** Its process is up; whether MCP {@code initialize} was answered is told apart. */
	RUNNING,

	/** Its process is being stopped. */
	STOPPING,

	/** Not running, by request or because it was never started. */
	STOPPED,

	/** Could not start, or ended unexpectedly and will not be restarted. */
	FAILED,

	/** Ended unexpectedly and waits for its next start under the restart policy. */
	RESTARTING,

	/** Configured with {@code enabled: false}. */
	DISABLED,

	/**
	 * No process, none needed until the next message starts one: a lazy server not yet
	 * used, or one stopped by its {@code idle-timeout}. Not a failure.
	 */
	IDLE

}

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

package dev.mcpstdio.actuate;

/**
 * What came of an action, for each technology to express in its own way.
 *
 * @author mcp-stdio authors
 */
enum ActionOutcome {

	/** The action was done. */
	DONE,

	/** No server has that name. */
	UNKNOWN_SERVER,

	/** The action is none of restart, stop and start. */
	UNKNOWN_ACTION,

	/** The server is in no state for the action (a start of a disabled server). */
	CONFLICT,

	/** The action failed (the server could not start). */
	FAILED

}

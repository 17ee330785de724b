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

import org.jspecify.annotations.Nullable;

/**
 * The environment variables that mark every process started for a server, so that its
 * processes can be found even after they left its tree.
 *
 * @param server the server name ({@value #SERVER})
 * @param ownerPid the pid of the JVM that started it ({@value #OWNER_PID})
 * @param instance the id of the one start that made it ({@value #INSTANCE})
 * @author mcp-stdio authors
 */
public record ProcessMarkers(String server, long ownerPid, @Nullable String instance) {

	/** Names the server a process was started for. */
	public static final String SERVER = "MCP_STDIO_SERVER";

	/** The pid of the JVM that started the process. */
	public static final String OWNER_PID = "MCP_STDIO_OWNER_PID";

	/** Tells one start of a server from another (a restart, a reconnect). */
	public static final String INSTANCE = "MCP_STDIO_INSTANCE";

	/** The pid of this JVM. */
	public static final long CURRENT_PID = ProcessHandle.current().pid();

}

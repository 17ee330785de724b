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

import java.util.Map;

import dev.mcpstdio.McpStdioException;

/**
 * One user of per-user servers.
 *
 * @author mcp-stdio authors
 * @see McpStdioServer#lease(ServerUser)
 */
public interface ServerUser {

	/**
	 * Return the key of the user's instances: opaque and stable, never their name or a
	 * token.
	 * @return the key
	 */
	String key();

	/**
	 * Resolve a server's {@code user-env} for this user, when their instance starts.
	 * @param server the server's name
	 * @param userEnv the variables and what they refer to, such as {@code oauth2:github}
	 * @return the variables and their values, all of them secret
	 * @throws McpStdioException naming the server and the variable when one cannot be
	 * resolved
	 */
	Map<String, String> env(String server, Map<String, String> userEnv);

}

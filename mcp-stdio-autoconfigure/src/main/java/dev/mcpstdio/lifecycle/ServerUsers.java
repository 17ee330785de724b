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

import org.jspecify.annotations.Nullable;

/**
 * Tells who calls a per-user server: a bean the application may replace.
 *
 * @author mcp-stdio authors
 * @see McpStdioServer#user()
 */
public interface ServerUsers {

	/**
	 * Return the user authenticated on the calling thread.
	 * @return the user, or {@code null} when there is none (or an anonymous one)
	 */
	@Nullable ServerUser current();

}

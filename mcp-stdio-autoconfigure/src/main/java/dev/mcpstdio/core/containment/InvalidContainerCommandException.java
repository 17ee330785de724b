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

package dev.mcpstdio.core.containment;

/**
 * A {@code docker run} or {@code podman run} command line that cannot serve MCP over
 * stdio.
 *
 * @author mcp-stdio authors
 */
public final class InvalidContainerCommandException extends IllegalArgumentException {

	private final int argIndex;

	InvalidContainerCommandException(String message, int argIndex) {
		super(message);
		this.argIndex = argIndex;
	}

	/**
	 * Return the index of the offending argument in the server's {@code args}.
	 * @return the index, or -1 when the problem is a missing argument
	 */
	public int argIndex() {
		return this.argIndex;
	}

}

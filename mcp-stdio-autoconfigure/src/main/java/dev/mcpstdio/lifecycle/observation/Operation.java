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

package dev.mcpstdio.lifecycle.observation;

import org.jspecify.annotations.Nullable;

/**
 * One kind of request to one server as its telemetry names it: the method and the tool or
 * prompt. Interned per server by {@link OperationNames}, so that a convention can build
 * its key values once per kind and find them again by identity.
 *
 * @author mcp-stdio authors
 */
final class Operation {

	private final String server;

	private final String method;

	private final @Nullable String toolName;

	private final @Nullable String promptName;

	Operation(String server, String method, @Nullable String toolName, @Nullable String promptName) {
		this.server = server;
		this.method = method;
		this.toolName = toolName;
		this.promptName = promptName;
	}

	String server() {
		return this.server;
	}

	String method() {
		return this.method;
	}

	@Nullable String toolName() {
		return this.toolName;
	}

	@Nullable String promptName() {
		return this.promptName;
	}

	/**
	 * Return the tool or prompt the request is about, else the server: the target of the
	 * span name {@code {mcp.method.name} {target}}.
	 * @return the target
	 */
	String target() {
		if (this.toolName != null) {
			return this.toolName;
		}
		return (this.promptName != null) ? this.promptName : this.server;
	}

	@Override
	public String toString() {
		return this.method + " " + target();
	}

}

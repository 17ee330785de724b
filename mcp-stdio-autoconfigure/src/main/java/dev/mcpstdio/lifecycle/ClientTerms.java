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

import dev.mcpstdio.core.server.StdioServerProcess;
import org.jspecify.annotations.Nullable;

/**
 * What a client integration told a server: who performs the MCP handshake, and how long
 * the client waits for a response. What it told a per-user server holds for its
 * instances.
 *
 * @author mcp-stdio authors
 */
final class ClientTerms {

	private volatile boolean selfInitialize = true;

	private volatile @Nullable Duration clientRequestTimeout;

	/**
	 * Create the terms of a server.
	 * @param template the terms of the per-user server this is an instance of, else
	 * {@code null}
	 */
	ClientTerms(@Nullable ClientTerms template) {
		if (template != null) {
			this.selfInitialize = template.selfInitialize;
			this.clientRequestTimeout = template.clientRequestTimeout;
		}
	}

	/**
	 * Return whether the server performs the handshake itself at start (the default), not
	 * a client.
	 * @return whether it initializes itself
	 */
	boolean selfInitialize() {
		return this.selfInitialize;
	}

	void setSelfInitialize(boolean selfInitialize) {
		this.selfInitialize = selfInitialize;
	}

	/**
	 * Record the client's request timeout, then tell the current process: a process
	 * started meanwhile was told by its launch.
	 * @param timeout the timeout
	 * @param status where the current process is read, after the timeout is recorded
	 */
	void setClientRequestTimeout(Duration timeout, ServerStatus status) {
		this.clientRequestTimeout = timeout;
		applyTo(status.process());
	}

	/**
	 * Tell a process the client's request timeout, when the client told it.
	 * @param process the process, or {@code null}
	 */
	void applyTo(@Nullable StdioServerProcess process) {
		Duration timeout = this.clientRequestTimeout;
		if (process != null && timeout != null) {
			process.setClientRequestTimeout(timeout);
		}
	}

}

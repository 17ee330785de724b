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

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

/**
 * A caller's hold on the instance its calls go to: while any caller holds it, the
 * instance is never stopped to make room for another user's. Closing it lets the instance
 * go (once).
 *
 * @author mcp-stdio authors
 * @see McpStdioServer#lease(ServerUser)
 */
public final class ServerLease implements AutoCloseable {

	private final McpStdioServer instance;

	private final @Nullable Runnable release;

	private final AtomicBoolean closed = new AtomicBoolean();

	ServerLease(McpStdioServer instance, @Nullable Runnable release) {
		this.instance = instance;
		this.release = release;
	}

	/**
	 * Return the server or instance held.
	 * @return the instance
	 */
	public McpStdioServer instance() {
		return this.instance;
	}

	@Override
	public void close() {
		if (this.release != null && this.closed.compareAndSet(false, true)) {
			this.release.run();
		}
	}

	/**
	 * Send a request to the instance held, and let it go once the request is answered (or
	 * could not be sent): an instance with a request under way is never stopped to make
	 * room.
	 * @param id the request id
	 * @param message the request
	 * @return the response future
	 */
	CompletableFuture<String> request(Object id, String message) {
		CompletableFuture<String> answer;
		try {
			answer = this.instance.request(id, message);
		}
		catch (RuntimeException ex) {
			close();
			throw ex;
		}
		answer.whenComplete((line, ex) -> close());
		return answer;
	}

}

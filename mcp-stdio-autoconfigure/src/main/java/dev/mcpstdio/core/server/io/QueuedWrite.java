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

package dev.mcpstdio.core.server.io;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One line queued for a server's stdin, taken back or written once.
 *
 * @author mcp-stdio authors
 */
final class QueuedWrite {

	private static final int QUEUED = 0;

	private static final int WRITING = 1;

	private static final int CANCELLED = 2;

	final byte[] line;

	final CompletableFuture<Void> future = new CompletableFuture<>();

	private final AtomicInteger state = new AtomicInteger(QUEUED);

	QueuedWrite(byte[] line) {
		this.line = line;
	}

	boolean start() {
		return this.state.compareAndSet(QUEUED, WRITING);
	}

	/**
	 * Take the write back if no one has started it.
	 * @return whether it will never be written
	 */
	boolean cancel() {
		return this.state.compareAndSet(QUEUED, CANCELLED) || this.state.get() == CANCELLED;
	}

}

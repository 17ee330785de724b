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

package dev.mcpstdio.core.process;

/**
 * One process held by its pidfd: signals reach it, or nobody once it was reaped, never a
 * later process with its pid. Closed by whoever opened it.
 *
 * @author mcp-stdio authors
 */
final class Pidfd implements AutoCloseable {

	private final Pidfds pidfds;

	private final int fd;

	private boolean closed;

	Pidfd(Pidfds pidfds, int fd) {
		this.pidfds = pidfds;
		this.fd = fd;
	}

	/**
	 * Send SIGTERM or SIGKILL to the held process.
	 * @param kill SIGKILL, else SIGTERM
	 * @return whether it was sent: {@code false} once the process was reaped
	 */
	synchronized boolean signal(boolean kill) {
		return !this.closed && this.pidfds.send(this.fd, kill);
	}

	/**
	 * Return whether the held process has ended (a zombie has).
	 * @return whether it ended
	 */
	synchronized boolean exited() {
		return this.closed || this.pidfds.exited(this.fd);
	}

	@Override
	public synchronized void close() {
		if (!this.closed) {
			this.closed = true;
			this.pidfds.close(this.fd);
		}
	}

}

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

import java.io.InputStream;

import dev.mcpstdio.core.secrets.SecretValues;

/**
 * The stderr of a host's servers: one thread polls every stream, one logs their lines.
 *
 * @author mcp-stdio authors
 */
final class StderrPump {

	private final StderrLog log = StderrLog.withDefaults();

	private final StderrPoller poller = new StderrPoller(StderrPoller.IDLE);

	/**
	 * Read a server's stderr from now on, until {@link #stop(StderrTail)}: its last lines
	 * kept, each logged under the server's name.
	 * @param serverName the server
	 * @param secrets its secret values, masked in what is logged and kept
	 * @param stderr the stream
	 * @param lines how many of its last lines are kept
	 * @return its tail
	 */
	StderrTail start(String serverName, SecretValues secrets, InputStream stderr, int lines) {
		StderrTail tail = new StderrTail(this.log.open(serverName, secrets), stderr, lines);
		this.poller.add(tail);
		return tail;
	}

	/**
	 * Stop polling a server's stderr: its process has ended.
	 * @param tail its tail
	 */
	void stop(StderrTail tail) {
		this.poller.remove(tail);
	}

	/** Log the lines still queued and end the logging thread, bounded. */
	void close() {
		this.log.shutdown();
	}

}

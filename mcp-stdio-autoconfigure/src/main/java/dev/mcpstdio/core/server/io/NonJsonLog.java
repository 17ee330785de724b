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

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.secrets.SecretSanitizer;
import dev.mcpstdio.core.secrets.SecretValues;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The log of the lines a server writes to stdout that are not JSON-RPC: the first ten,
 * then at most one every ten seconds, each saying how many were not logged.
 *
 * @author mcp-stdio authors
 */
final class NonJsonLog {

	// logged under the reader's name: what a user turns up to see their server's stdout
	private static final Log logger = LogFactory.getLog(StdoutReader.class);

	private static final int FREE_NON_JSON_LOGS = 10;

	private static final long NON_JSON_LOG_INTERVAL_NANOS = 10_000_000_000L;

	private static final int QUOTE_LENGTH = 200;

	private final String serverName;

	private final SecretValues secrets;

	/** Written by the reading thread only; read by tests that check no line was cut. */
	private volatile long lines;

	private long suppressed;

	private long lastLog;

	NonJsonLog(String serverName, SecretValues secrets) {
		this.serverName = serverName;
		this.secrets = secrets;
	}

	/**
	 * Count a line that is not JSON-RPC, and log it unless too many were logged lately.
	 * @param text the line
	 */
	void skipped(String text) {
		this.lines++;
		long now = System.nanoTime();
		if (this.lines > FREE_NON_JSON_LOGS && now - this.lastLog < NON_JSON_LOG_INTERVAL_NANOS) {
			this.suppressed++;
			return;
		}
		this.lastLog = now;
		String quote = SecretSanitizer.quote(text, QUOTE_LENGTH, this.secrets);
		String suppressed = (this.suppressed > 0) ? " (" + this.suppressed + " more such lines were not logged)" : "";
		this.suppressed = 0;
		logger.warn(McpStdioException.describe(this.serverName)
				+ " wrote a line to stdout that is not JSON-RPC; skipped it: " + quote + suppressed);
	}

	long lines() {
		return this.lines;
	}

}

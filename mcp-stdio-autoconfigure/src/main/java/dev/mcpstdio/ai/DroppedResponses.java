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
package dev.mcpstdio.ai;

import java.util.function.LongSupplier;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.secrets.SecretSanitizer;
import dev.mcpstdio.core.secrets.SecretValues;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;

/**
 * The warnings for one server's responses that the client does not get, at a bounded
 * rate: a response to an id never sent (or already answered, or whose request its client
 * gave up on long ago) is dropped here instead of reaching the client, whose session logs
 * a warning for each one.
 *
 * @author mcp-stdio authors
 */
final class DroppedResponses {

	private static final Log logger = LogFactory.getLog(McpStdioClientTransport.class);

	/** Warnings logged at once before the rate applies. */
	static final int FREE_WARNINGS = 10;

	/** At most one more warning per this long, counting the drops not logged. */
	static final long WARNING_INTERVAL_NANOS = 10_000_000_000L;

	private static final int ID_QUOTE_LENGTH = 60;

	private final String serverName;

	private final SecretValues secrets;

	private final LongSupplier nanoTime;

	private long warnings;

	private long notLogged;

	private long lastWarning;

	DroppedResponses(String serverName, SecretValues secrets, LongSupplier nanoTime) {
		this.serverName = serverName;
		this.secrets = secrets;
		this.nanoTime = nanoTime;
	}

	/**
	 * Drop a response that answers no request of the client's in flight; a warning says
	 * so, at a bounded rate.
	 * @param id the response's id
	 */
	void dropped(@Nullable Object id) {
		long suppressed;
		synchronized (this) {
			long now = this.nanoTime.getAsLong();
			if (this.warnings >= FREE_WARNINGS && now - this.lastWarning < WARNING_INTERVAL_NANOS) {
				this.notLogged++;
				return;
			}
			this.warnings++;
			this.lastWarning = now;
			suppressed = this.notLogged;
			this.notLogged = 0;
		}
		logger.warn(LogMessage.format("Dropped a response of %s to id %s, which was never sent or already answered%s",
				McpStdioException.describe(this.serverName),
				SecretSanitizer.quote(String.valueOf(id), ID_QUOTE_LENGTH, this.secrets),
				(suppressed > 0) ? " (" + suppressed + " more such responses were dropped without a log line)" : ""));
	}

}

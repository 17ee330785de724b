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

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

import dev.mcpstdio.core.io.SecretSanitizer;
import dev.mcpstdio.core.io.SecretValues;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The requests a client sent to one server through its transport and that are not
 * answered yet, by id, so that a response to an id never sent (or already answered) is
 * dropped here with a warning at a bounded rate, instead of reaching the client, whose
 * session logs a warning for each one. At most {@value #CAPACITY} requests are
 * remembered.
 *
 * @author mcp-stdio authors
 */
final class SentRequests {

	/**
	 * The most requests remembered: beyond that the oldest is forgotten (its client gave
	 * up on it long ago, at its request timeout), and its late answer is dropped like any
	 * other.
	 */
	static final int CAPACITY = 4096;

	/** Warnings logged at once before the rate applies. */
	static final int FREE_WARNINGS = 10;

	/** At most one more warning per this long, counting the drops not logged. */
	static final long WARNING_INTERVAL_NANOS = 10_000_000_000L;

	private static final Log logger = LogFactory.getLog(McpStdioClientTransport.class);

	private static final int ID_QUOTE_LENGTH = 60;

	private final String serverName;

	private final SecretValues secrets;

	private final LongSupplier nanoTime;

	/** Method by id, oldest first. */
	private final Map<String, String> pending = new LinkedHashMap<>(16, 0.75f, false) {

		@Override
		protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
			return size() > CAPACITY;
		}

	};

	private long warnings;

	private long notLogged;

	private long lastWarning;

	SentRequests(String serverName, SecretValues secrets, LongSupplier nanoTime) {
		this.serverName = serverName;
		this.secrets = secrets;
		this.nanoTime = nanoTime;
	}

	/**
	 * Remember a request the client sends.
	 * @param id its id
	 * @param method its method
	 */
	synchronized void sent(Object id, String method) {
		this.pending.put(key(id), method);
	}

	/**
	 * Take the request a response (or an answer in the server's place) answers.
	 * @param id the response's id
	 * @return the request's method, or {@code null} when no request with that id waits
	 */
	synchronized @Nullable String answered(@Nullable Object id) {
		return (id != null) ? this.pending.remove(key(id)) : null;
	}

	/**
	 * Take a response from the server: the request it answers; if none waits for it, it
	 * is to be dropped, and a warning says so (at a bounded rate).
	 * @param id the response's id
	 * @return the method of the request it answers, or {@code null} when the client does
	 * not get it
	 */
	@Nullable String accept(@Nullable Object id) {
		String method = answered(id);
		if (method == null) {
			warnDropped(id);
		}
		return method;
	}

	private void warnDropped(@Nullable Object id) {
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
		logger.warn("Dropped a response of MCP server '" + this.serverName + "' to id "
				+ SecretSanitizer.quote(String.valueOf(id), ID_QUOTE_LENGTH, this.secrets)
				+ ", which was never sent or already answered" + ((suppressed > 0)
						? " (" + suppressed + " more such responses were dropped without a log line)" : ""));
	}

	/**
	 * Return how many requests wait for an answer.
	 * @return the count
	 */
	synchronized int size() {
		return this.pending.size();
	}

	private static String key(Object id) {
		// "7" and 7 are one id, as the server's own bookkeeping has it
		return id.toString();
	}

}

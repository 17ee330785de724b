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

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

import dev.mcpstdio.core.secrets.SecretSanitizer;
import dev.mcpstdio.core.secrets.SecretValues;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse.JSONRPCError;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One server's answers to its client: matched to the requests sent, then sanitized.
 *
 * @author mcp-stdio authors
 */
final class ServerAnswers {

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

	/** The longest text of an error, or of an {@code initialize} result, passed on. */
	static final int MAX_TEXT = 8192;

	/** The most values of an error's data walked; the rest is left out. */
	private static final int MAX_VALUES = 1024;

	/** Data nested deeper is masked whole rather than walked. */
	private static final int MAX_DEPTH = 16;

	private static final int ID_QUOTE_LENGTH = 60;

	/**
	 * The results whose texts are masked: what Spring AI logs (a tool's error result
	 * among them) or hands on.
	 */
	private static final Set<String> MASKED_RESULTS = Set.of(McpSchema.METHOD_INITIALIZE, McpSchema.METHOD_TOOLS_LIST,
			McpSchema.METHOD_PROMPT_LIST, McpSchema.METHOD_RESOURCES_LIST, McpSchema.METHOD_RESOURCES_TEMPLATES_LIST,
			McpSchema.METHOD_TOOLS_CALL);

	private static final Log logger = LogFactory.getLog(McpStdioClientTransport.class);

	private final String serverName;

	private final SecretValues secrets;

	private final LongSupplier nanoTime;

	/**
	 * The methods of the requests sent and not answered yet, by id, oldest first: a
	 * response to an id never sent (or already answered) is dropped here with a warning
	 * at a bounded rate, instead of reaching the client, whose session logs a warning for
	 * each one.
	 */
	private final Map<String, String> pending = new LinkedHashMap<>(16, 0.75f, false) {

		@Override
		protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
			return size() > CAPACITY;
		}

	};

	private long warnings;

	private long notLogged;

	private long lastWarning;

	ServerAnswers(String serverName, SecretValues secrets, LongSupplier nanoTime) {
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
		// "7" and 7 are one id, as the server's own bookkeeping has it
		this.pending.put(id.toString(), method);
	}

	/**
	 * Take the request a response (or an error for the server's exit) answers.
	 * @param id the response's id
	 * @return the request's method, or {@code null} when no request with that id waits
	 */
	synchronized @Nullable String answered(@Nullable Object id) {
		return (id != null) ? this.pending.remove(id.toString()) : null;
	}

	/**
	 * Take a response from the server: the request it answers; if none waits for it, it
	 * is to be dropped, and a warning says so (at a bounded rate).
	 * @param id the response's id
	 * @return the method of the request it answers, or {@code null} when the client does
	 * not get it
	 */
	@Nullable String accept(@Nullable Object id) {
		long suppressed;
		synchronized (this) {
			String method = answered(id);
			if (method != null) {
				return method;
			}
			long now = this.nanoTime.getAsLong();
			if (this.warnings >= FREE_WARNINGS && now - this.lastWarning < WARNING_INTERVAL_NANOS) {
				this.notLogged++;
				return null;
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
		return null;
	}

	/**
	 * Return a response fit to pass on, and so for Spring AI and its log. An error's
	 * message and every text and key of its data get the server's secret values and what
	 * looks like a secret masked, numbers that are a secret value too, each bounded in
	 * length ({@code Invalid API key: ****** (token=******)}). The results of
	 * {@code initialize}, of the lists (server info, instructions, tool names and
	 * descriptions) and of tool calls get the server's secret values masked. Control
	 * characters are escaped in both.
	 * @param response the server's response
	 * @param method the method of the request it answers
	 * @return the response to give the client
	 */
	JSONRPCResponse sanitized(JSONRPCResponse response, String method) {
		JSONRPCError error = response.error();
		if (error != null) {
			JSONRPCError sanitized = new JSONRPCError(error.code(),
					SecretSanitizer.quote(String.valueOf(error.message()), MAX_TEXT, this.secrets),
					new Walk(true, true, MAX_VALUES).value(error.data(), 0));
			return new JSONRPCResponse(response.jsonrpc(), response.id(), null, sanitized);
		}
		if (!MASKED_RESULTS.contains(method) || response.result() == null) {
			return response;
		}
		// initialize's texts are logged by the MCP SDK: bounded; a list's go to the model
		Walk walk = new Walk(false, McpSchema.METHOD_INITIALIZE.equals(method), Integer.MAX_VALUE);
		return new JSONRPCResponse(response.jsonrpc(), response.id(), walk.value(response.result(), 0), null);
	}

	/**
	 * One walk over a value, masking the secrets in its texts and keys, within a budget.
	 */
	private final class Walk {

		/** Whether what looks like a secret is masked too, as in an error. */
		private final boolean shapes;

		private final boolean bounded;

		private int budget;

		Walk(boolean shapes, boolean bounded, int budget) {
			this.shapes = shapes;
			this.bounded = bounded;
			this.budget = budget;
		}

		@Nullable Object value(@Nullable Object data, int depth) {
			if (--this.budget < 0) {
				return null;
			}
			if (data instanceof String text) {
				return text(text);
			}
			if (data instanceof Number number) {
				return ServerAnswers.this.secrets.mask(number.toString()).equals(number.toString()) ? number
						: SecretSanitizer.MASK;
			}
			if ((data instanceof Map || data instanceof List) && depth >= MAX_DEPTH) {
				return SecretSanitizer.MASK;
			}
			if (data instanceof Map<?, ?> map) {
				Map<Object, @Nullable Object> sanitized = new LinkedHashMap<>();
				for (Map.Entry<?, ?> entry : map.entrySet()) {
					if (this.budget <= 0) {
						break;
					}
					String key = String.valueOf(entry.getKey());
					boolean secret = this.shapes && entry.getValue() instanceof String
							&& SecretValues.isSecretName(key);
					sanitized.put(text(key), secret ? SecretSanitizer.MASK : value(entry.getValue(), depth + 1));
				}
				return sanitized;
			}
			if (data instanceof List<?> list) {
				List<@Nullable Object> sanitized = new ArrayList<>(Math.min(list.size(), 1024));
				for (Object value : list) {
					if (this.budget <= 0) {
						break;
					}
					sanitized.add(value(value, depth + 1));
				}
				return sanitized;
			}
			// booleans, null
			return data;
		}

		private String text(String text) {
			if (this.shapes) {
				return SecretSanitizer.quote(text, MAX_TEXT, ServerAnswers.this.secrets);
			}
			String masked = SecretSanitizer.printable(ServerAnswers.this.secrets.mask(text));
			return (this.bounded && masked.length() > MAX_TEXT) ? masked.substring(0, MAX_TEXT) + "..." : masked;
		}

	}

}

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

import dev.mcpstdio.core.StdioServerSpec;
import dev.mcpstdio.core.io.SecretSanitizer;
import dev.mcpstdio.core.io.SecretValues;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse.JSONRPCError;
import org.jspecify.annotations.Nullable;

/**
 * Sanitizes a server's answers before they reach the client, and so Spring AI and its
 * log.
 * <p>
 * An error's message and every text and key of its data get the server's secret values
 * and what looks like a secret masked, numbers that are a secret value too, each bounded
 * in length ({@code Invalid API key: ****** (token=******)}). The results of
 * {@code initialize} and of the lists (server info, instructions, tool names and
 * descriptions) and of tool calls get the server's secret values masked. Control
 * characters are escaped in both.
 *
 * @author mcp-stdio authors
 */
final class ServerErrors {

	/**
	 * The results whose texts are masked: what Spring AI logs (a tool's error result
	 * among them) or hands on.
	 */
	private static final Set<String> MASKED_RESULTS = Set.of(McpSchema.METHOD_INITIALIZE, McpSchema.METHOD_TOOLS_LIST,
			McpSchema.METHOD_PROMPT_LIST, McpSchema.METHOD_RESOURCES_LIST, McpSchema.METHOD_RESOURCES_TEMPLATES_LIST,
			McpSchema.METHOD_TOOLS_CALL);

	/** Data nested deeper is masked whole rather than walked. */
	private static final int MAX_DEPTH = 16;

	/** The longest text of an error, or of an {@code initialize} result, passed on. */
	static final int MAX_TEXT = 8192;

	/** The most values of an error's data walked; the rest is left out. */
	private static final int MAX_VALUES = 1024;

	private ServerErrors() {
	}

	/**
	 * Return a response fit to pass on.
	 * @param response the server's response
	 * @param method the method of the request it answers, or {@code null} when unknown
	 * @param spec the server
	 * @return the response to give the client
	 */
	static JSONRPCResponse sanitized(JSONRPCResponse response, @Nullable String method, StdioServerSpec spec) {
		JSONRPCError error = response.error();
		if (error != null) {
			Walk walk = new Walk(spec.secrets(), true, true, MAX_VALUES);
			JSONRPCError sanitized = new JSONRPCError(error.code(),
					SecretSanitizer.quote(String.valueOf(error.message()), MAX_TEXT, spec.secrets()),
					walk.value(error.data(), 0));
			return new JSONRPCResponse(response.jsonrpc(), response.id(), null, sanitized);
		}
		if (method == null || !MASKED_RESULTS.contains(method) || response.result() == null) {
			return response;
		}
		// initialize's texts are logged by the MCP SDK: bounded; a list's go to the model
		Walk walk = new Walk(spec.secrets(), false, McpSchema.METHOD_INITIALIZE.equals(method), Integer.MAX_VALUE);
		return new JSONRPCResponse(response.jsonrpc(), response.id(), walk.value(response.result(), 0), null);
	}

	/**
	 * One walk over a value, masking secret values in every text and key, and, for an
	 * error, what looks like a secret; with a budget of values.
	 */
	private static final class Walk {

		private final SecretValues secrets;

		private final boolean shapes;

		private final boolean bounded;

		private int budget;

		Walk(SecretValues secrets, boolean shapes, boolean bounded, int budget) {
			this.secrets = secrets;
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
				return this.secrets.mask(number.toString()).equals(number.toString()) ? number : SecretSanitizer.MASK;
			}
			if (data instanceof Map<?, ?> map) {
				if (depth >= MAX_DEPTH) {
					return SecretSanitizer.MASK;
				}
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
				if (depth >= MAX_DEPTH) {
					return SecretSanitizer.MASK;
				}
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
				return SecretSanitizer.quote(text, MAX_TEXT, this.secrets);
			}
			String masked = SecretSanitizer.printable(this.secrets.mask(text));
			return (this.bounded && masked.length() > MAX_TEXT) ? masked.substring(0, MAX_TEXT) + "..." : masked;
		}

	}

}

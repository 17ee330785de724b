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

import dev.mcpstdio.core.secrets.SecretSanitizer;
import dev.mcpstdio.core.secrets.SecretValues;
import dev.mcpstdio.core.server.io.JsonRpcLine;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse.JSONRPCError;
import org.jspecify.annotations.Nullable;

/**
 * The sanitizing of one server's answers to its client: what the client gets of each
 * response, by the method of the request it answers.
 *
 * @author mcp-stdio authors
 */
final class ServerAnswers {

	/**
	 * The longest text of an error, or of an {@code initialize} result, passed on.
	 */
	static final int MAX_TEXT = 8192;

	/** The most values of an error's data walked; the rest is left out. */
	private static final int MAX_VALUES = 1024;

	/** Data nested deeper is masked whole rather than walked. */
	private static final int MAX_DEPTH = 16;

	/**
	 * The results whose texts are masked: what Spring AI logs (a tool's error result
	 * among them) or hands on.
	 */
	private static final Set<String> MASKED_RESULTS = Set.of(McpSchema.METHOD_INITIALIZE, McpSchema.METHOD_TOOLS_LIST,
			McpSchema.METHOD_PROMPT_LIST, McpSchema.METHOD_RESOURCES_LIST, McpSchema.METHOD_RESOURCES_TEMPLATES_LIST,
			McpSchema.METHOD_TOOLS_CALL);

	private final SecretValues secrets;

	ServerAnswers(SecretValues secrets) {
		this.secrets = secrets;
	}

	/**
	 * Whether a line answers {@code tools/call} with nothing the sanitizing would change:
	 * no escape, no hidden character, no secret value, and, where values are secret, no
	 * number whose Java text could differ from the line's.
	 * @param line the server's line
	 * @param method the method of the request it answers, or {@code null} when it answers
	 * none of the client's
	 * @return whether it may be read as it is written
	 */
	boolean passesAsWritten(JsonRpcLine line, @Nullable String method) {
		if (!line.isResponse() || !McpSchema.METHOD_TOOLS_CALL.equals(method)) {
			return false;
		}
		String text = line.text();
		return plain(text)
				&& (this.secrets == SecretValues.NONE || (this.secrets.mask(text).equals(text) && !line.hasFraction()));
	}

	/**
	 * Whether a text reads as it is written: no escape and no hidden character. One pass
	 * over the usual answer, printable ASCII; another text is asked of the sanitizer.
	 */
	private static boolean plain(String text) {
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '\\') {
				return false;
			}
			if (c < 0x20 || c >= 0x7F) {
				return text.indexOf('\\', i) < 0 && SecretSanitizer.printable(text).equals(text);
			}
		}
		return true;
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
		if (!MASKED_RESULTS.contains(method) || response.result() == null
				|| response.result() instanceof CallToolResult) {
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
							&& SecretSanitizer.isSecretName(key);
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

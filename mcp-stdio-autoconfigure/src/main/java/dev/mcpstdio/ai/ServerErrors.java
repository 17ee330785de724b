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

import dev.mcpstdio.core.StdioServerSpec;
import dev.mcpstdio.core.io.SecretSanitizer;
import dev.mcpstdio.core.io.SecretValues;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse.JSONRPCError;
import org.jspecify.annotations.Nullable;

/**
 * Sanitizes the JSON-RPC errors a server sends before they reach the client (and so
 * Spring AI's caller and log): their message and every text of their data, with the
 * server's secret values and what looks like a secret masked ({@code Invalid API key:
 * ****** (token=******)}).
 *
 * @author mcp-stdio authors
 */
final class ServerErrors {

	/** Data nested deeper is masked whole rather than walked. */
	private static final int MAX_DEPTH = 16;

	private ServerErrors() {
	}

	/**
	 * Return a response fit to pass on: an error sanitized, a result as it is.
	 * @param response the server's response
	 * @param spec the server
	 * @return the response to give the client
	 */
	static JSONRPCResponse sanitized(JSONRPCResponse response, StdioServerSpec spec) {
		JSONRPCError error = response.error();
		if (error == null) {
			return response;
		}
		JSONRPCError sanitized = new JSONRPCError(error.code(), spec.sanitize(error.message()),
				data(error.data(), spec.secrets(), 0));
		return new JSONRPCResponse(response.jsonrpc(), response.id(), null, sanitized);
	}

	private static @Nullable Object data(@Nullable Object data, SecretValues secrets, int depth) {
		if (data instanceof String text) {
			return SecretSanitizer.text(text, secrets);
		}
		if (data instanceof Map<?, ?> map) {
			if (depth >= MAX_DEPTH) {
				return SecretSanitizer.MASK;
			}
			Map<Object, @Nullable Object> sanitized = new LinkedHashMap<>();
			map.forEach((key, value) -> sanitized.put(key,
					(value instanceof String && SecretValues.isSecretName(String.valueOf(key))) ? SecretSanitizer.MASK
							: data(value, secrets, depth + 1)));
			return sanitized;
		}
		if (data instanceof List<?> list) {
			if (depth >= MAX_DEPTH) {
				return SecretSanitizer.MASK;
			}
			List<@Nullable Object> sanitized = new ArrayList<>(list.size());
			list.forEach((value) -> sanitized.add(data(value, secrets, depth + 1)));
			return sanitized;
		}
		// numbers, booleans, null
		return data;
	}

}

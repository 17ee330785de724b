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

package dev.mcpstdio.core;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Checks that a stdout line is one JSON value and, for a JSON-RPC object, finds its
 * top-level {@code id} and whether it has a {@code method}, without building a tree.
 *
 * @author mcp-stdio authors
 */
final class JsonRpcPeek {

	// Lines are already bounded by max-message-size; the parser need not bound them again
	private static final JsonFactory factory = JsonFactory.builder()
		.streamReadConstraints(StreamReadConstraints.builder()
			.maxStringLength(Integer.MAX_VALUE)
			.maxDocumentLength(-1)
			.maxNestingDepth(10_000)
			.build())
		.build();

	private static final String CANCELLED = "notifications/cancelled";

	private JsonRpcPeek() {
	}

	/**
	 * Peek at one line.
	 * @param line the UTF-8 bytes
	 * @param length how many bytes of {@code line} hold it
	 * @return what the line is, or {@code null} when it is not JSON
	 */
	static @Nullable Peeked peek(byte[] line, int length) {
		try (JsonParser parser = factory.createParser(ObjectReadContext.empty(), line, 0, length)) {
			JsonToken first = parser.nextToken();
			if (first == null) {
				return null;
			}
			String id = null;
			boolean method = false;
			if (first == JsonToken.START_OBJECT) {
				JsonToken token;
				while ((token = parser.nextToken()) == JsonToken.PROPERTY_NAME) {
					String name = parser.currentName();
					JsonToken value = parser.nextToken();
					if ("id".equals(name) && (value == JsonToken.VALUE_STRING || value == JsonToken.VALUE_NUMBER_INT)) {
						id = parser.getString();
					}
					else if ("method".equals(name)) {
						method = true;
					}
					parser.skipChildren();
				}
				if (token != JsonToken.END_OBJECT) {
					return null;
				}
			}
			else {
				parser.skipChildren();
			}
			if (parser.nextToken() != null) {
				return null;
			}
			return new Peeked(id, method);
		}
		catch (JacksonException ex) {
			return null;
		}
	}

	/**
	 * Return the id of the request a {@code notifications/cancelled} message cancels.
	 * @param message a message a client sends
	 * @return the cancelled request's id as text, or {@code null} when the message is no
	 * cancellation
	 */
	static @Nullable String cancelledRequestId(String message) {
		if (!message.contains(CANCELLED)) {
			return null;
		}
		try {
			JsonNode node = JsonMapper.shared().readTree(message);
			if (!CANCELLED.equals(node.path("method").asString(""))) {
				return null;
			}
			JsonNode id = node.path("params").path("requestId");
			return (id.isString() || id.isIntegralNumber()) ? id.asString() : null;
		}
		catch (JacksonException ex) {
			return null;
		}
	}

	/**
	 * What a JSON line is.
	 *
	 * @param id the top-level id as text, or {@code null}
	 * @param hasMethod whether it has a top-level method (a request or notification)
	 */
	record Peeked(@Nullable String id, boolean hasMethod) {

		boolean isResponse() {
			return this.id != null && !this.hasMethod;
		}

	}

}

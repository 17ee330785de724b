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

package dev.mcpstdio.lifecycle.observation;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.json.JsonFactory;

/**
 * Reads what telemetry needs out of a JSON-RPC message with Jackson's streaming parser,
 * building nothing but those values and skipping the rest (a tool's arguments and results
 * are passed over, never built): a request's method and the tool or prompt it names, a
 * response's id and error. Never throws: a message that is not JSON, or not of the
 * expected shape, gives what could be read of it.
 *
 * @author mcp-stdio authors
 */
final class JsonRpcFacts {

	private static final JsonFactory JSON = new JsonFactory();

	private JsonRpcFacts() {
	}

	/**
	 * Read a request's method and, from its {@code params}, the {@code name} (the tool of
	 * {@code tools/call}, the prompt of {@code prompts/get}).
	 * @param message the request
	 * @return what it says
	 */
	static Request request(String message) {
		String method = null;
		String name = null;
		boolean paramsSeen = false;
		try (JsonParser parser = JSON.createParser(message)) {
			if (parser.nextToken() != JsonToken.START_OBJECT) {
				return Request.UNKNOWN;
			}
			while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
				String field = parser.currentName();
				JsonToken value = parser.nextToken();
				if ("method".equals(field) && value == JsonToken.VALUE_STRING) {
					method = parser.getString();
				}
				else if ("params".equals(field) && value == JsonToken.START_OBJECT) {
					paramsSeen = true;
					name = stringProperty(parser, "name");
				}
				else {
					parser.skipChildren();
				}
				if (method != null && paramsSeen) {
					break;
				}
			}
		}
		catch (JacksonException ex) {
			// not JSON: what was read so far
		}
		return new Request(method, name);
	}

	/**
	 * Read a response's id and outcome.
	 * @param message a message from the server
	 * @return what it says, or {@code null} when it is no response (a request or a
	 * notification of the server's, or no JSON)
	 */
	static @Nullable Response response(String message) {
		String id = null;
		String errorCode = null;
		String errorMessage = null;
		boolean error = false;
		boolean isError = false;
		boolean outcomeSeen = false;
		try (JsonParser parser = JSON.createParser(message)) {
			if (parser.nextToken() != JsonToken.START_OBJECT) {
				return null;
			}
			while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
				String field = parser.currentName();
				JsonToken value = parser.nextToken();
				switch (field) {
					case "method" -> {
						// a request or a notification of the server's
						return null;
					}
					case "id" -> {
						if (value == JsonToken.VALUE_STRING || value == JsonToken.VALUE_NUMBER_INT) {
							id = parser.getString();
						}
						else {
							parser.skipChildren();
						}
					}
					case "error" -> {
						outcomeSeen = true;
						if (value == JsonToken.START_OBJECT) {
							error = true;
							while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
								String errorField = parser.currentName();
								JsonToken errorValue = parser.nextToken();
								if ("code".equals(errorField) && errorValue == JsonToken.VALUE_NUMBER_INT) {
									errorCode = parser.getString();
								}
								else if ("message".equals(errorField) && errorValue == JsonToken.VALUE_STRING) {
									errorMessage = parser.getString();
								}
								else {
									parser.skipChildren();
								}
							}
						}
						else {
							parser.skipChildren();
						}
					}
					case "result" -> {
						outcomeSeen = true;
						if (value == JsonToken.START_OBJECT) {
							isError = isErrorResult(parser);
						}
						else {
							parser.skipChildren();
						}
					}
					default -> parser.skipChildren();
				}
				if (id != null && outcomeSeen) {
					break;
				}
			}
		}
		catch (JacksonException ex) {
			// not JSON, or cut short: what was read so far
		}
		return (id != null) ? new Response(id, error, errorCode, errorMessage, isError) : null;
	}

	/**
	 * Read the {@code requestId} of a {@code notifications/cancelled}.
	 * @param message a notification
	 * @return the id of the request it cancels, or {@code null} when it is no
	 * cancellation
	 */
	static @Nullable String cancelledRequestId(String message) {
		boolean cancelled = false;
		String requestId = null;
		try (JsonParser parser = JSON.createParser(message)) {
			if (parser.nextToken() != JsonToken.START_OBJECT) {
				return null;
			}
			while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
				String field = parser.currentName();
				JsonToken value = parser.nextToken();
				if ("method".equals(field) && value == JsonToken.VALUE_STRING) {
					cancelled = "notifications/cancelled".equals(parser.getString());
				}
				else if ("params".equals(field) && value == JsonToken.START_OBJECT) {
					requestId = stringProperty(parser, "requestId");
				}
				else {
					parser.skipChildren();
				}
			}
		}
		catch (JacksonException ex) {
			return null;
		}
		return cancelled ? requestId : null;
	}

	/**
	 * Read one string or integer property of the object the parser is at the start of,
	 * skipping the others, and leave the parser at its end.
	 */
	private static @Nullable String stringProperty(JsonParser parser, String name) {
		String found = null;
		while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
			String field = parser.currentName();
			JsonToken value = parser.nextToken();
			if (found == null && name.equals(field)
					&& (value == JsonToken.VALUE_STRING || value == JsonToken.VALUE_NUMBER_INT)) {
				found = parser.getString();
			}
			else {
				parser.skipChildren();
			}
		}
		return found;
	}

	/** Whether the result object the parser is at the start of says isError: true. */
	private static boolean isErrorResult(JsonParser parser) {
		boolean isError = false;
		while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
			String field = parser.currentName();
			JsonToken value = parser.nextToken();
			if ("isError".equals(field)) {
				isError = value == JsonToken.VALUE_TRUE;
			}
			else {
				parser.skipChildren();
			}
		}
		return isError;
	}

	/**
	 * What a request says.
	 *
	 * @param method its method, or {@code null} when it has none
	 * @param name the {@code name} in its {@code params}, or {@code null}
	 */
	record Request(@Nullable String method, @Nullable String name) {

		static final Request UNKNOWN = new Request(null, null);

	}

	/**
	 * What a response says.
	 *
	 * @param id its id, as text
	 * @param error whether it is an error response
	 * @param errorCode the error's code, as text, or {@code null}
	 * @param errorMessage the error's message, or {@code null}
	 * @param isError whether its result says {@code isError: true} (a tool's error)
	 */
	record Response(String id, boolean error, @Nullable String errorCode, @Nullable String errorMessage,
			boolean isError) {

	}

}

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

/**
 * Reads what telemetry needs out of a JSON-RPC message with a {@link JsonCursor} (a
 * request's method and the tool or prompt it names, a response's id and error), in one
 * pass that builds nothing but those values. Never throws: a message that is not JSON, or
 * not of the expected shape, gives what could be read of it.
 *
 * @author mcp-stdio authors
 */
final class JsonRpcFacts {

	private JsonRpcFacts() {
	}

	/**
	 * Read a request's method and, from its {@code params}, the {@code name} (the tool of
	 * {@code tools/call}, the prompt of {@code prompts/get}).
	 * @param message the request
	 * @return what it says
	 */
	static Request request(String message) {
		JsonCursor json = new JsonCursor(message);
		if (!json.enterObject()) {
			return Request.UNKNOWN;
		}
		String method = null;
		String name = null;
		boolean paramsSeen = false;
		while ((method == null || !paramsSeen) && json.nextMember()) {
			if (json.is("method")) {
				method = json.string();
			}
			else if (json.is("params") && json.peek() == '{') {
				paramsSeen = true;
				name = member(json, "name");
			}
			else {
				json.skip();
			}
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
		JsonCursor json = new JsonCursor(message);
		if (!json.enterObject()) {
			return null;
		}
		String id = null;
		String errorCode = null;
		String errorMessage = null;
		boolean error = false;
		boolean isError = false;
		boolean outcomeSeen = false;
		while ((id == null || !outcomeSeen) && json.nextMember()) {
			if (json.is("method")) {
				// a request or a notification of the server's
				return null;
			}
			if (json.is("id")) {
				id = json.stringOrInteger();
			}
			else if (json.is("error")) {
				outcomeSeen = true;
				error = json.enterObject();
				while (error && json.nextMember()) {
					if (json.is("code")) {
						// an int32, or no code at all: its length is the server's to
						// choose
						errorCode = json.int32();
					}
					else if (json.is("message")) {
						errorMessage = json.string();
					}
					else {
						json.skip();
					}
				}
				if (!error) {
					json.skip();
				}
			}
			else if (json.is("result")) {
				outcomeSeen = true;
				if (json.enterObject()) {
					while (json.nextMember()) {
						if (json.is("isError")) {
							isError = json.isTrue();
						}
						else {
							json.skip();
						}
					}
				}
				else {
					json.skip();
				}
			}
			else {
				json.skip();
			}
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
		JsonCursor json = new JsonCursor(message);
		if (!json.enterObject()) {
			return null;
		}
		boolean cancelled = false;
		String requestId = null;
		while (json.nextMember()) {
			if (json.is("method")) {
				cancelled = "notifications/cancelled".equals(json.string());
			}
			else if (json.is("params") && json.peek() == '{') {
				requestId = member(json, "requestId");
			}
			else {
				json.skip();
			}
		}
		return cancelled ? requestId : null;
	}

	/**
	 * Read one string or integer member of the object the cursor is at, skipping the
	 * others, and leave the cursor after the object.
	 */
	private static @Nullable String member(JsonCursor json, String name) {
		String found = null;
		json.enterObject();
		while (json.nextMember()) {
			if (found == null && json.is(name)) {
				found = json.stringOrInteger();
			}
			else {
				json.skip();
			}
		}
		return found;
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

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

import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.io.JsonStringEncoder;
import tools.jackson.core.json.JsonFactory;

/**
 * Puts the trace context a tracer propagates ({@code traceparent}, and {@code tracestate}
 * and {@code baggage} when it has them) into a request's {@code params._meta}, merged
 * with what {@code _meta} already holds, a key already there kept. The request is not
 * parsed and written again: the new members are inserted where {@code _meta}, {@code
 * params} or the request opens, so every other character stays as the sender wrote it.
 *
 * @author mcp-stdio authors
 */
final class TraceContextInjector {

	private static final JsonFactory JSON = new JsonFactory();

	private TraceContextInjector() {
	}

	/**
	 * Return the request with the fields in its {@code params._meta}.
	 * @param message one JSON-RPC request
	 * @param fields the fields to propagate, in order
	 * @return the request with them, or the request as it was when its {@code params} or
	 * {@code _meta} is not an object (nothing to merge into) or it is not JSON
	 */
	static String inject(String message, Map<String, String> fields) {
		@Nullable Target target;
		try (JsonParser parser = JSON.createParser(message)) {
			target = find(parser, fields);
		}
		catch (JacksonException ex) {
			return message;
		}
		if (target == null) {
			return message;
		}
		StringBuilder members = new StringBuilder(64 * fields.size());
		boolean first = true;
		for (Map.Entry<String, String> field : fields.entrySet()) {
			if (target.present() != null && target.present().contains(field.getKey())) {
				continue;
			}
			if (!first) {
				members.append(',');
			}
			first = false;
			quote(members, field.getKey());
			members.append(':');
			quote(members, field.getValue());
		}
		if (first) {
			// every key was there already
			return message;
		}
		String inserted = switch (target.level()) {
			case META -> members.toString();
			case PARAMS -> "\"_meta\":{" + members + "}";
			case ROOT -> "\"params\":{\"_meta\":{" + members + "}}";
		};
		return message.substring(0, target.afterBrace()) + inserted + (target.empty() ? "" : ",")
				+ message.substring(target.afterBrace());
	}

	private static @Nullable Target find(JsonParser parser, Map<String, String> fields) {
		if (parser.nextToken() != JsonToken.START_OBJECT) {
			return null;
		}
		int rootBrace = offset(parser);
		boolean rootEmpty = true;
		Target params = null;
		JsonToken token;
		while ((token = parser.nextToken()) == JsonToken.PROPERTY_NAME) {
			rootEmpty = false;
			String field = parser.currentName();
			JsonToken value = parser.nextToken();
			if ("params".equals(field)) {
				if (value != JsonToken.START_OBJECT) {
					// by-position params, or null: no _meta to merge into
					return null;
				}
				params = findInParams(parser, fields);
				if (params == null) {
					return null;
				}
			}
			else {
				parser.skipChildren();
			}
		}
		if (token != JsonToken.END_OBJECT) {
			return null;
		}
		return (params != null) ? params : new Target(Level.ROOT, rootBrace + 1, rootEmpty, null);
	}

	/** At the start of params: find its _meta, else params itself. */
	private static @Nullable Target findInParams(JsonParser parser, Map<String, String> fields) {
		int paramsBrace = offset(parser);
		boolean paramsEmpty = true;
		Target meta = null;
		while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
			paramsEmpty = false;
			String field = parser.currentName();
			JsonToken value = parser.nextToken();
			if ("_meta".equals(field) && meta == null) {
				if (value != JsonToken.START_OBJECT) {
					// a _meta that is not an object cannot take the fields
					return null;
				}
				meta = findInMeta(parser, fields);
			}
			else {
				parser.skipChildren();
			}
		}
		return (meta != null) ? meta : new Target(Level.PARAMS, paramsBrace + 1, paramsEmpty, null);
	}

	/** At the start of _meta: note which of the fields it has. */
	private static Target findInMeta(JsonParser parser, Map<String, String> fields) {
		int metaBrace = offset(parser);
		boolean metaEmpty = true;
		Set<String> present = null;
		while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
			metaEmpty = false;
			String field = parser.currentName();
			if (fields.containsKey(field)) {
				if (present == null) {
					present = new HashSet<>();
				}
				present.add(field);
			}
			parser.nextToken();
			parser.skipChildren();
		}
		return new Target(Level.META, metaBrace + 1, metaEmpty, present);
	}

	private static int offset(JsonParser parser) {
		return (int) parser.currentTokenLocation().getCharOffset();
	}

	private static void quote(StringBuilder json, String text) {
		json.append('"');
		JsonStringEncoder.getInstance().quoteAsString(text, json);
		json.append('"');
	}

	private enum Level {

		ROOT, PARAMS, META

	}

	/**
	 * Where the members go.
	 *
	 * @param level into which object
	 * @param afterBrace the offset just after its opening brace
	 * @param empty whether it has no members yet
	 * @param present the fields it holds already, or {@code null} for none
	 */
	private record Target(Level level, int afterBrace, boolean empty, @Nullable Set<String> present) {

	}

}

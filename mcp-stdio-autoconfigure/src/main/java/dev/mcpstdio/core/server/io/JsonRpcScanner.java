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

package dev.mcpstdio.core.server.io;

import java.util.Arrays;
import java.util.LinkedHashSet;

import org.jspecify.annotations.Nullable;

/**
 * The one pass over a JSON-RPC line that fills its {@link JsonRpcLine}: strict JSON, the
 * members of the root, of {@code params}, {@code error}, {@code result} and
 * {@code params._meta} read on the way, every other value skipped without recursion.
 *
 * @author mcp-stdio authors
 */
final class JsonRpcScanner {

	private JsonRpcScanner() {
	}

	// The one pass: values are skipped without recursion; the members of the root, of
	// params, error, result and params._meta are looked at on the way

	static boolean parse(JsonRpcLine line) {
		// a byte order mark is skipped, as Jackson does
		line.at = (line.end > 0 && line.text.charAt(0) == '\uFEFF') ? 1 : 0;
		int depth = 0;
		while (true) {
			// every value but the root begins a member (its name read first) or an
			// element
			boolean member = depth > 0 && line.roles[depth - 1] != JsonRpcLine.ARRAY;
			String key = member ? key(line, line.roles[depth - 1]) : null;
			if (member && key == null) {
				return false;
			}
			JsonTokens.whitespace(line);
			if (line.at >= line.end) {
				return false;
			}
			char c = line.text.charAt(line.at);
			byte parent = (depth == 0) ? JsonRpcLine.OTHER : line.roles[depth - 1];
			byte role = (depth == 0) ? JsonRpcLine.ROOT : child(parent, key);
			if (c != '{' && (role == JsonRpcLine.PARAMS || role == JsonRpcLine.META)) {
				// by-position params, or params or _meta that is no object: nothing to
				// add to
				line.insertAt = -2;
			}
			if (c == '{' || c == '[') {
				if (depth == JsonRpcLine.MAX_DEPTH) {
					return false;
				}
				open(line, c, parent, role, key, depth++);
				if (!JsonTokens.is(line, line.at, (c == '{') ? '}' : ']')) {
					continue;
				}
				line.at++;
				depth--;
			}
			else if (!scalar(line, c, parent, key)) {
				return false;
			}
			depth = closed(line, depth);
			if (depth <= 0) {
				return depth == 0 && line.at == line.end;
			}
		}
	}

	/**
	 * After a value: close the objects and arrays it ends, up to the next member or
	 * element.
	 * @return the depth that goes on, 0 when the root ended, -1 when it is not valid
	 */
	private static int closed(JsonRpcLine line, int depth) {
		int open = depth;
		while (true) {
			JsonTokens.whitespace(line);
			if (open == 0) {
				return 0;
			}
			if (line.at >= line.end) {
				return -1;
			}
			char next = line.text.charAt(line.at++);
			if (next == ',') {
				return open;
			}
			if (next != ((line.roles[open - 1] != JsonRpcLine.ARRAY) ? '}' : ']')) {
				return -1;
			}
			open--;
		}
	}

	/** Open an object or an array at a depth, and look past its opening whitespace. */
	private static void open(JsonRpcLine line, char c, byte parent, byte role, @Nullable String key, int depth) {
		if (depth == line.roles.length) {
			line.roles = Arrays.copyOf(line.roles, depth * 2);
		}
		if (parent == JsonRpcLine.ROOT && "method".equals(key)) {
			// a method of any value makes it no response
			line.hasMethod = true;
			line.method = null;
		}
		boolean object = c == '{';
		line.roles[depth] = object ? role : JsonRpcLine.ARRAY;
		line.at++;
		if (object) {
			opened(line, role);
		}
		JsonTokens.whitespace(line);
	}

	/** The role of a value: what its container is, and under which key. */
	private static byte child(byte parent, @Nullable String key) {
		if (parent == JsonRpcLine.ROOT && key != null) {
			return switch (key) {
				case "params" -> JsonRpcLine.PARAMS;
				case "error" -> JsonRpcLine.ERROR;
				case "result" -> JsonRpcLine.RESULT;
				default -> JsonRpcLine.OTHER;
			};
		}
		return (parent == JsonRpcLine.PARAMS && "_meta".equals(key)) ? JsonRpcLine.META : JsonRpcLine.OTHER;
	}

	/**
	 * Where members of {@code _meta} can go, at the deepest object that is on the way.
	 */
	private static void opened(JsonRpcLine line, byte role) {
		line.error |= role == JsonRpcLine.ERROR;
		if ((role == JsonRpcLine.ROOT || role == JsonRpcLine.PARAMS || role == JsonRpcLine.META)
				&& line.insertAt != -2) {
			if (role != JsonRpcLine.META && line.insertInto == JsonRpcLine.META) {
				return;
			}
			line.insertAt = line.at;
			line.insertInto = role;
			JsonTokens.whitespace(line);
			line.insertEmpty = JsonTokens.is(line, line.at, '}');
		}
	}

	/** Read a member's name and its colon; remember the names of {@code _meta}. */
	private static @Nullable String key(JsonRpcLine line, byte role) {
		JsonTokens.whitespace(line);
		// the names of other objects are skipped, not built
		String key = JsonTokens.string(line, role != JsonRpcLine.OTHER);
		JsonTokens.whitespace(line);
		if (key == null || !JsonTokens.is(line, line.at, ':')) {
			return null;
		}
		line.at++;
		if (role == JsonRpcLine.META) {
			if (line.metaKeys == null) {
				line.metaKeys = new LinkedHashSet<>();
			}
			if (line.metaKeys.size() < JsonRpcLine.MAX_META_KEYS) {
				line.metaKeys.add(key);
			}
		}
		return key;
	}

	private static boolean scalar(JsonRpcLine line, char c, byte parent, @Nullable String key) {
		boolean wanted = key != null && parent != JsonRpcLine.OTHER && parent != JsonRpcLine.META;
		int start = line.at;
		if (c == '"') {
			String value = JsonTokens.string(line, wanted);
			if (value != null && wanted) {
				take(line, parent, key, value, true, false);
			}
			return value != null;
		}
		boolean number = c != 't' && c != 'f' && c != 'n';
		if (!(number ? JsonTokens.number(line)
				: JsonTokens.literal(line, (c == 't') ? "true" : (c == 'f') ? "false" : "null"))) {
			return false;
		}
		if (wanted) {
			String value = line.text.substring(start, line.at);
			take(line, parent, key, value, false, number && isInteger(value));
		}
		return true;
	}

	private static void take(JsonRpcLine line, byte parent, String key, String value, boolean string, boolean integer) {
		// ids and names are strings or integers
		boolean idLike = string || integer;
		switch (parent) {
			case JsonRpcLine.ROOT -> {
				if (key.equals("id") && idLike) {
					line.id = value;
				}
				else if (key.equals("method")) {
					line.hasMethod = true;
					line.method = string ? value : null;
				}
			}
			case JsonRpcLine.PARAMS -> {
				if (key.equals("name") && idLike) {
					line.name = value;
				}
				else if (key.equals("requestId") && idLike) {
					line.requestId = value;
				}
			}
			case JsonRpcLine.ERROR -> {
				if (key.equals("code") && integer) {
					line.errorCode = int32(value);
				}
				else if (key.equals("message") && string) {
					line.errorMessage = value;
				}
			}
			case JsonRpcLine.RESULT -> line.toolError |= key.equals("isError") && "true".equals(value);
			default -> {
			}
		}
	}

	/** A JSON-RPC error code is an int32 or it is not one: its length is the server's. */
	private static @Nullable String int32(String integer) {
		if (integer.length() > 11) {
			return null;
		}
		long value = Long.parseLong(integer);
		return (value >= Integer.MIN_VALUE && value <= Integer.MAX_VALUE) ? integer : null;
	}

	private static boolean isInteger(String number) {
		return number.indexOf('.') < 0 && number.indexOf('e') < 0 && number.indexOf('E') < 0;
	}

}

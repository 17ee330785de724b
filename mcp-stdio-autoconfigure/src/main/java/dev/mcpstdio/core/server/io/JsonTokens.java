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

import java.util.HexFormat;

import org.jspecify.annotations.Nullable;

/**
 * The tokens of JSON read at a line's cursor for {@link JsonRpcScanner}: strings (the one
 * unescape of mcp-stdio), numbers, literals and whitespace, each checked strictly.
 *
 * @author mcp-stdio authors
 */
final class JsonTokens {

	private JsonTokens() {
	}

	/**
	 * Read a string, its quotes included: the text when asked for (the one unescape of
	 * mcp-stdio), else {@code ""}; {@code null} and no move when it is not valid.
	 */
	static @Nullable String string(JsonRpcLine line, boolean text) {
		if (!is(line, line.at, '"')) {
			return null;
		}
		int i = line.at + 1;
		StringBuilder unescaped = null;
		int plain = i;
		while (i < line.end) {
			char c = line.text.charAt(i);
			if (c == '"') {
				line.at = i + 1;
				if (!text) {
					return "";
				}
				return (unescaped == null) ? line.text.substring(plain, i)
						: unescaped.append(line.text, plain, i).toString();
			}
			if (c < 0x20) {
				return null;
			}
			if (c != '\\') {
				i++;
				continue;
			}
			if (i + 1 >= line.end) {
				return null;
			}
			if (unescaped == null) {
				unescaped = new StringBuilder();
			}
			unescaped.append(line.text, plain, i);
			i = unescape(line, i, unescaped);
			if (i < 0) {
				return null;
			}
			plain = i;
		}
		return null;
	}

	/**
	 * Append what the escape at {@code i}, its backslash, stands for.
	 * @return where the escape ends, -1 when it is not valid
	 */
	private static int unescape(JsonRpcLine line, int i, StringBuilder unescaped) {
		char escaped = line.text.charAt(i + 1);
		switch (escaped) {
			case 'b' -> unescaped.append('\b');
			case 'f' -> unescaped.append('\f');
			case 'n' -> unescaped.append('\n');
			case 'r' -> unescaped.append('\r');
			case 't' -> unescaped.append('\t');
			case '"', '\\', '/' -> unescaped.append(escaped);
			case 'u' -> {
				if (i + 5 >= line.end || !hex(line, i + 2, i + 6)) {
					return -1;
				}
				unescaped.append((char) Integer.parseInt(line.text, i + 2, i + 6, 16));
				return i + 6;
			}
			default -> {
				return -1;
			}
		}
		return i + 2;
	}

	private static boolean hex(JsonRpcLine line, int from, int to) {
		for (int i = from; i < to; i++) {
			// ASCII only, as JSON says: Character.digit also takes other scripts' digits
			if (!HexFormat.isHexDigit(line.text.charAt(i))) {
				return false;
			}
		}
		return true;
	}

	static boolean number(JsonRpcLine line) {
		int start = is(line, line.at, '-') ? line.at + 1 : line.at;
		int i = digits(line, start);
		if (i > 0 && line.text.charAt(start) == '0') {
			// a leading 0 is the whole integer part
			i = start + 1;
		}
		if (i > 0 && is(line, i, '.')) {
			line.fraction = true;
			i = digits(line, i + 1);
		}
		if (i > 0 && (is(line, i, 'e') || is(line, i, 'E'))) {
			line.fraction = true;
			i = digits(line, (is(line, i + 1, '+') || is(line, i + 1, '-')) ? i + 2 : i + 1);
		}
		if (i < 0) {
			return false;
		}
		line.at = i;
		return true;
	}

	/** The end of the digits at {@code from}, -1 when there is none. */
	private static int digits(JsonRpcLine line, int from) {
		int i = from;
		while (i < line.end && line.text.charAt(i) >= '0' && line.text.charAt(i) <= '9') {
			i++;
		}
		return (i > from) ? i : -1;
	}

	static boolean is(JsonRpcLine line, int i, char c) {
		return i < line.end && line.text.charAt(i) == c;
	}

	static boolean literal(JsonRpcLine line, String literal) {
		if (!line.text.startsWith(literal, line.at)) {
			return false;
		}
		line.at += literal.length();
		return true;
	}

	static void whitespace(JsonRpcLine line) {
		while (line.at < line.end) {
			char c = line.text.charAt(line.at);
			if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
				return;
			}
			line.at++;
		}
	}

}

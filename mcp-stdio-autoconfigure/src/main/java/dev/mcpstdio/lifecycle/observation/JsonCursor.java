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
 * A cursor over one JSON text, for reading a few members of a JSON-RPC message without
 * building the rest: it moves over members and values, compares member names in place,
 * and builds only the strings asked for. It checks no more of the grammar than it needs
 * to find its way (the responses it reads were checked by the stdout reader; a request
 * that is not JSON only gives less); anything it cannot follow makes it stop, never throw
 * or loop.
 *
 * @author mcp-stdio authors
 */
final class JsonCursor {

	private final String json;

	private final int end;

	private int at;

	private int keyStart = -1;

	private int keyEnd = -1;

	private boolean stuck;

	JsonCursor(String json) {
		this.json = json;
		this.end = json.length();
	}

	/**
	 * Enter the object that begins here (after whitespace).
	 * @return whether there was one
	 */
	boolean enterObject() {
		skipWhitespace();
		if (this.at < this.end && this.json.charAt(this.at) == '{') {
			this.at++;
			return true;
		}
		return false;
	}

	/**
	 * Move to the next member of the object the cursor is in, reading its name; at the
	 * object's end, move past it.
	 * @return whether there is one (false at the end of the object, or when stuck)
	 */
	boolean nextMember() {
		if (this.stuck) {
			return false;
		}
		skipWhitespace();
		if (this.at < this.end && this.json.charAt(this.at) == ',') {
			this.at++;
			skipWhitespace();
		}
		if (this.at >= this.end) {
			return stop();
		}
		char c = this.json.charAt(this.at);
		if (c == '}') {
			this.at++;
			return false;
		}
		if (c != '"') {
			return stop();
		}
		int close = stringEnd(this.at);
		if (close < 0) {
			return stop();
		}
		this.keyStart = this.at + 1;
		this.keyEnd = close;
		this.at = close + 1;
		skipWhitespace();
		if (this.at >= this.end || this.json.charAt(this.at) != ':') {
			return stop();
		}
		this.at++;
		skipWhitespace();
		return this.at < this.end || stop();
	}

	/**
	 * Return whether the current member has this name (written without escapes).
	 * @param name the name
	 * @return whether it is the member's
	 */
	boolean is(String name) {
		int length = this.keyEnd - this.keyStart;
		if (length == name.length()) {
			return this.json.regionMatches(this.keyStart, name, 0, length);
		}
		// a name with escapes, as JSON allows
		int backslash = this.json.indexOf('\\', this.keyStart);
		return backslash >= 0 && backslash < this.keyEnd && name.equals(unescape(this.keyStart, this.keyEnd));
	}

	/**
	 * Return the first character of the current value.
	 * @return it, or 0 when stuck
	 */
	char peek() {
		return (!this.stuck && this.at < this.end) ? this.json.charAt(this.at) : 0;
	}

	/**
	 * Read the current value when it is a string, else skip it.
	 * @return the string, or {@code null} for another value
	 */
	@Nullable String string() {
		if (peek() != '"') {
			skip();
			return null;
		}
		int close = stringEnd(this.at);
		if (close < 0) {
			stop();
			return null;
		}
		String value = unescape(this.at + 1, close);
		this.at = close + 1;
		return value;
	}

	/**
	 * Read the current value when it is a string or an integer, as text, else skip it.
	 * @return the text, or {@code null} for another value
	 */
	@Nullable String stringOrInteger() {
		return (peek() == '"') ? string() : integer();
	}

	/**
	 * Read the current value when it is an integer, as text, else skip it.
	 * @return the integer as written, or {@code null} for another value
	 */
	@Nullable String integer() {
		int start = this.at;
		skip();
		if (this.stuck) {
			return null;
		}
		int digits = (start < this.at && this.json.charAt(start) == '-') ? start + 1 : start;
		if (digits >= this.at) {
			return null;
		}
		for (int i = digits; i < this.at; i++) {
			char c = this.json.charAt(i);
			if (c < '0' || c > '9') {
				return null;
			}
		}
		return this.json.substring(start, this.at);
	}

	/**
	 * Read the current value when it is an integer that fits 32 bits, as JSON-RPC error
	 * codes do, else skip it.
	 * @return the integer as written, or {@code null} for another value
	 */
	@Nullable String int32() {
		String integer = integer();
		if (integer == null || integer.length() > 11) {
			return null;
		}
		long value = Long.parseLong(integer);
		return (value >= Integer.MIN_VALUE && value <= Integer.MAX_VALUE) ? Long.toString(value) : null;
	}

	/**
	 * Read the current value as {@code true} or not, skipping it.
	 * @return whether it is {@code true}
	 */
	boolean isTrue() {
		boolean yes = this.json.startsWith("true", this.at);
		skip();
		return yes;
	}

	/** Skip the current value, whatever it is. */
	void skip() {
		if (this.stuck || this.at >= this.end) {
			stop();
			return;
		}
		char c = this.json.charAt(this.at);
		if (c == '"') {
			skipString();
		}
		else if (c == '{' || c == '[') {
			skipNested();
		}
		else {
			// a number, true, false or null: up to the next delimiter
			while (this.at < this.end) {
				char d = this.json.charAt(this.at);
				if (d == ',' || d == '}' || d == ']' || isWhitespace(d)) {
					break;
				}
				this.at++;
			}
		}
	}

	private void skipNested() {
		int depth = 0;
		while (this.at < this.end) {
			char c = this.json.charAt(this.at);
			if (c == '"') {
				if (!skipString()) {
					return;
				}
				continue;
			}
			if (c == '{' || c == '[') {
				depth++;
			}
			else if (c == '}' || c == ']') {
				depth--;
				if (depth == 0) {
					this.at++;
					return;
				}
			}
			this.at++;
		}
		stop();
	}

	/** Move past the string the cursor is at; stuck when it does not end. */
	private boolean skipString() {
		int close = stringEnd(this.at);
		if (close < 0) {
			return stop();
		}
		this.at = close + 1;
		return true;
	}

	/** The index of the quote that closes the string opening at {@code quote}, or -1. */
	private int stringEnd(int quote) {
		int from = quote + 1;
		while (true) {
			// indexOf is an intrinsic: long strings (a tool's output) go by fast
			int close = this.json.indexOf('"', from);
			if (close < 0) {
				return -1;
			}
			int backslashes = 0;
			while (close - 1 - backslashes > quote && this.json.charAt(close - 1 - backslashes) == '\\') {
				backslashes++;
			}
			if (backslashes % 2 == 0) {
				return close;
			}
			from = close + 1;
		}
	}

	private String unescape(int start, int end) {
		int backslash = this.json.indexOf('\\', start);
		if (backslash < 0 || backslash >= end) {
			return this.json.substring(start, end);
		}
		StringBuilder text = new StringBuilder(end - start);
		int i = start;
		while (i < end) {
			char c = this.json.charAt(i++);
			if (c != '\\' || i >= end) {
				text.append(c);
				continue;
			}
			char e = this.json.charAt(i++);
			switch (e) {
				case 'b' -> text.append('\b');
				case 'f' -> text.append('\f');
				case 'n' -> text.append('\n');
				case 'r' -> text.append('\r');
				case 't' -> text.append('\t');
				case 'u' -> {
					if (i + 4 <= end) {
						try {
							text.append((char) Integer.parseInt(this.json, i, i + 4, 16));
						}
						catch (NumberFormatException ex) {
							text.append('\uFFFD');
						}
						i += 4;
					}
				}
				default -> text.append(e);
			}
		}
		return text.toString();
	}

	private void skipWhitespace() {
		while (this.at < this.end && isWhitespace(this.json.charAt(this.at))) {
			this.at++;
		}
	}

	private static boolean isWhitespace(char c) {
		return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\uFEFF';
	}

	private boolean stop() {
		this.stuck = true;
		return false;
	}

}

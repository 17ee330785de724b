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

package dev.mcpstdio.core.io;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Checks that a stdout line is one JSON value and, for a JSON-RPC object, finds its
 * top-level {@code id} and whether it has a {@code method}, in one pass over its bytes
 * that builds nothing but the id. Every message a server sends goes through here, on the
 * thread that reads its stdout.
 *
 * @author mcp-stdio authors
 */
public final class JsonRpcPeek {

	/** The deepest nesting taken for JSON. */
	static final int MAX_DEPTH = 10_000;

	private static final String CANCELLED = "notifications/cancelled";

	private static final byte[] ID = { 'i', 'd' };

	private static final byte[] METHOD = { 'm', 'e', 't', 'h', 'o', 'd' };

	/**
	 * The bytes that end the plain run of a string: a quote, a backslash, a control
	 * character.
	 */
	private static final boolean[] STRING_SPECIAL = new boolean[256];

	static {
		for (int c = 0; c < 0x20; c++) {
			STRING_SPECIAL[c] = true;
		}
		STRING_SPECIAL['"'] = true;
		STRING_SPECIAL['\\'] = true;
	}

	private final byte[] bytes;

	private final int end;

	private int pos;

	private byte[] stack = new byte[16];

	private JsonRpcPeek(byte[] bytes, int end) {
		this.bytes = bytes;
		this.end = end;
	}

	/**
	 * Peek at one line. The grammar is strict JSON (RFC 8259), as Jackson reads it by
	 * default: no comments, single quotes, leading zeros, control characters in strings
	 * or trailing commas; nesting deeper than {@value #MAX_DEPTH} is not taken for JSON.
	 * @param line the UTF-8 bytes
	 * @param length how many bytes of {@code line} hold it
	 * @return what the line is, or {@code null} when it is not JSON
	 */
	static @Nullable Peeked peek(byte[] line, int length) {
		return new JsonRpcPeek(line, length).peek();
	}

	private @Nullable Peeked peek() {
		if (this.end >= 3 && this.bytes[0] == (byte) 0xEF && this.bytes[1] == (byte) 0xBB
				&& this.bytes[2] == (byte) 0xBF) {
			// A byte order mark, as a parser skips it
			this.pos = 3;
		}
		skipWhitespace();
		if (this.pos >= this.end) {
			return null;
		}
		String id = null;
		boolean method = false;
		if (this.bytes[this.pos] == '{') {
			this.pos++;
			skipWhitespace();
			if (this.pos < this.end && this.bytes[this.pos] == '}') {
				this.pos++;
			}
			else {
				while (true) {
					int keyStart = this.pos;
					if (!string()) {
						return null;
					}
					int keyEnd = this.pos;
					skipWhitespace();
					if (this.pos >= this.end || this.bytes[this.pos] != ':') {
						return null;
					}
					this.pos++;
					skipWhitespace();
					int valueStart = this.pos;
					if (!value()) {
						return null;
					}
					if (isKey(keyStart, keyEnd, ID)) {
						byte first = this.bytes[valueStart];
						if (first == '"') {
							id = text(valueStart, this.pos);
						}
						else if (isInteger(valueStart, this.pos)) {
							id = new String(this.bytes, valueStart, this.pos - valueStart, StandardCharsets.US_ASCII);
						}
					}
					else if (isKey(keyStart, keyEnd, METHOD)) {
						method = true;
					}
					skipWhitespace();
					if (this.pos >= this.end) {
						return null;
					}
					byte next = this.bytes[this.pos++];
					if (next == '}') {
						break;
					}
					if (next != ',') {
						return null;
					}
					skipWhitespace();
				}
			}
		}
		else if (!value()) {
			return null;
		}
		skipWhitespace();
		return (this.pos == this.end) ? new Peeked(id, method) : null;
	}

	/**
	 * Skip one value, its nested values with it, without recursion.
	 * @return whether it was valid JSON
	 */
	private boolean value() {
		int depth = 0;
		while (true) {
			// A value is expected here
			skipWhitespace();
			if (this.pos >= this.end) {
				return false;
			}
			byte c = this.bytes[this.pos];
			boolean opened = false;
			if (c == '{' || c == '[') {
				if (depth == MAX_DEPTH) {
					return false;
				}
				if (depth == this.stack.length) {
					this.stack = Arrays.copyOf(this.stack, depth * 2);
				}
				this.stack[depth++] = c;
				this.pos++;
				skipWhitespace();
				if (this.pos >= this.end) {
					return false;
				}
				byte next = this.bytes[this.pos];
				if (next == ((c == '{') ? '}' : ']')) {
					this.pos++;
					depth--;
				}
				else if (c == '[' || member()) {
					opened = true;
				}
				else {
					return false;
				}
			}
			else if (!scalar(c)) {
				return false;
			}
			if (opened) {
				continue;
			}
			// A value ended: close what it ends, or go on to the next one
			while (true) {
				if (depth == 0) {
					return true;
				}
				skipWhitespace();
				if (this.pos >= this.end) {
					return false;
				}
				byte open = this.stack[depth - 1];
				byte next = this.bytes[this.pos++];
				if (next == ',') {
					if (open == '{' && !member()) {
						return false;
					}
					break;
				}
				if (next != ((open == '{') ? '}' : ']')) {
					return false;
				}
				depth--;
			}
		}
	}

	/** Read an object member's name and its colon: its value comes next. */
	private boolean member() {
		skipWhitespace();
		if (!string()) {
			return false;
		}
		skipWhitespace();
		if (this.pos >= this.end || this.bytes[this.pos] != ':') {
			return false;
		}
		this.pos++;
		return true;
	}

	private boolean scalar(byte c) {
		if (c == '"') {
			return string();
		}
		if (c == 't') {
			return literal("true");
		}
		if (c == 'f') {
			return literal("false");
		}
		if (c == 'n') {
			return literal("null");
		}
		return number();
	}

	/**
	 * Skip a string, its quotes included. Its bytes are not checked for UTF-8: a response
	 * with an invalid byte still reaches its caller.
	 */
	private boolean string() {
		if (this.pos >= this.end || this.bytes[this.pos] != '"') {
			return false;
		}
		int i = this.pos + 1;
		while (i < this.end) {
			// Most bytes of a string are plain: skip them with one look each
			while (i < this.end && !STRING_SPECIAL[this.bytes[i] & 0xFF]) {
				i++;
			}
			if (i >= this.end) {
				return false;
			}
			byte c = this.bytes[i];
			if (c == '"') {
				this.pos = i + 1;
				return true;
			}
			if (c == '\\') {
				if (i + 1 >= this.end) {
					return false;
				}
				byte escaped = this.bytes[i + 1];
				if (escaped == 'u') {
					if (i + 5 >= this.end || !isHex(this.bytes[i + 2]) || !isHex(this.bytes[i + 3])
							|| !isHex(this.bytes[i + 4]) || !isHex(this.bytes[i + 5])) {
						return false;
					}
					i += 6;
					continue;
				}
				if ("\"\\/bfnrt".indexOf(escaped) < 0) {
					return false;
				}
				i += 2;
				continue;
			}
			// An unescaped control character
			return false;
		}
		return false;
	}

	private boolean number() {
		int i = this.pos;
		if (i < this.end && this.bytes[i] == '-') {
			i++;
		}
		if (i >= this.end || !isDigit(this.bytes[i])) {
			return false;
		}
		if (this.bytes[i] == '0') {
			i++;
		}
		else {
			while (i < this.end && isDigit(this.bytes[i])) {
				i++;
			}
		}
		if (i < this.end && this.bytes[i] == '.') {
			i++;
			if (i >= this.end || !isDigit(this.bytes[i])) {
				return false;
			}
			while (i < this.end && isDigit(this.bytes[i])) {
				i++;
			}
		}
		if (i < this.end && (this.bytes[i] == 'e' || this.bytes[i] == 'E')) {
			i++;
			if (i < this.end && (this.bytes[i] == '+' || this.bytes[i] == '-')) {
				i++;
			}
			if (i >= this.end || !isDigit(this.bytes[i])) {
				return false;
			}
			while (i < this.end && isDigit(this.bytes[i])) {
				i++;
			}
		}
		this.pos = i;
		return true;
	}

	private boolean literal(String literal) {
		if (this.end - this.pos < literal.length()) {
			return false;
		}
		for (int i = 0; i < literal.length(); i++) {
			if (this.bytes[this.pos + i] != literal.charAt(i)) {
				return false;
			}
		}
		this.pos += literal.length();
		return true;
	}

	private void skipWhitespace() {
		while (this.pos < this.end) {
			byte c = this.bytes[this.pos];
			if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
				return;
			}
			this.pos++;
		}
	}

	private boolean isKey(int start, int end, byte[] name) {
		int length = end - start - 2;
		if (length == name.length && Arrays.equals(this.bytes, start + 1, end - 1, name, 0, name.length)) {
			return true;
		}
		// An escaped name, such as "\u0069d", is rare but the same name
		return length > name.length && text(start, end).equals(new String(name, StandardCharsets.US_ASCII));
	}

	/**
	 * Return whether a valid value is an integer: a number without fraction or exponent.
	 */
	private boolean isInteger(int start, int end) {
		byte first = this.bytes[start];
		if (first != '-' && !isDigit(first)) {
			return false;
		}
		for (int i = start; i < end; i++) {
			byte c = this.bytes[i];
			if (c == '.' || c == 'e' || c == 'E') {
				return false;
			}
		}
		return true;
	}

	/**
	 * Return the text of a valid string, its quotes at {@code start} and {@code end - 1}.
	 */
	private String text(int start, int end) {
		int from = start + 1;
		int to = end - 1;
		int escape = from;
		while (escape < to && this.bytes[escape] != '\\') {
			escape++;
		}
		if (escape == to) {
			return new String(this.bytes, from, to - from, StandardCharsets.UTF_8);
		}
		StringBuilder text = new StringBuilder(to - from);
		int i = from;
		while (i < to) {
			int plain = i;
			while (i < to && this.bytes[i] != '\\') {
				i++;
			}
			text.append(new String(this.bytes, plain, i - plain, StandardCharsets.UTF_8));
			if (i >= to) {
				break;
			}
			byte escaped = this.bytes[i + 1];
			switch (escaped) {
				case 'b' -> text.append('\b');
				case 'f' -> text.append('\f');
				case 'n' -> text.append('\n');
				case 'r' -> text.append('\r');
				case 't' -> text.append('\t');
				case 'u' -> {
					text.append(
							(char) Integer.parseInt(new String(this.bytes, i + 2, 4, StandardCharsets.US_ASCII), 16));
					i += 4;
				}
				default -> text.append((char) escaped);
			}
			i += 2;
		}
		return text.toString();
	}

	private static boolean isDigit(byte c) {
		return c >= '0' && c <= '9';
	}

	private static boolean isHex(byte c) {
		return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
	}

	/**
	 * Return the id of the request a {@code notifications/cancelled} message cancels.
	 * @param message a message a client sends
	 * @return the cancelled request's id as text, or {@code null} when the message is no
	 * cancellation
	 */
	public static @Nullable String cancelledRequestId(String message) {
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
	public record Peeked(@Nullable String id, boolean hasMethod) {

		public boolean isResponse() {
			return this.id != null && !this.hasMethod;
		}

	}

}

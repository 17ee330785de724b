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
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * One line of JSON-RPC and what every layer needs of it, read in one pass.
 *
 * @author mcp-stdio authors
 */
public final class JsonRpcLine {

	/** The deepest nesting taken for JSON. */
	static final int MAX_DEPTH = 10_000;

	/** The most {@code _meta} keys remembered: enough for any trace context. */
	private static final int MAX_META_KEYS = 64;

	private static final String CANCELLED = "notifications/cancelled";

	private static final byte OTHER = 0;

	private static final byte ROOT = 1;

	private static final byte PARAMS = 2;

	private static final byte ERROR = 3;

	private static final byte RESULT = 4;

	private static final byte META = 5;

	/** The role of an array: its elements are of no interest. */
	private static final byte ARRAY = 6;

	private final String text;

	private final int end;

	private int at;

	/** While the line is read: the role of each object or array open, by depth. */
	private byte[] roles = new byte[16];

	private @Nullable String id;

	private @Nullable String method;

	private boolean hasMethod;

	private @Nullable String name;

	private @Nullable String requestId;

	private boolean error;

	private @Nullable String errorCode;

	private @Nullable String errorMessage;

	private boolean toolError;

	/** Whether a number has a fraction or an exponent. */
	private boolean fraction;

	/** Where a member of {@code params._meta} can be inserted, -1 where none can. */
	private int insertAt = -1;

	private byte insertInto;

	private boolean insertEmpty;

	private @Nullable Set<String> metaKeys;

	private JsonRpcLine(String text) {
		this.text = text;
		this.end = text.length();
	}

	/**
	 * Read a line. The grammar is strict JSON (RFC 8259), as Jackson reads it by default;
	 * nesting deeper than {@value #MAX_DEPTH} is not taken for JSON.
	 * @param text the line, without its newline
	 * @return what it says, or {@code null} when it is not JSON
	 */
	public static @Nullable JsonRpcLine scan(String text) {
		JsonRpcLine line = new JsonRpcLine(text);
		return line.parse() ? line : null;
	}

	/**
	 * Read a line that is sent, JSON or not: one that is not gives no facts.
	 * @param text the line
	 * @return what it says
	 */
	public static JsonRpcLine of(String text) {
		JsonRpcLine line = scan(text);
		return (line != null) ? line : new JsonRpcLine(text);
	}

	public String text() {
		return this.text;
	}

	/**
	 * Return the top-level {@code id}: a string's text, or an integer as written.
	 * @return the id, or {@code null}
	 */
	public @Nullable String id() {
		return this.id;
	}

	public @Nullable String method() {
		return this.method;
	}

	/**
	 * Return the {@code name} of the {@code params}: the tool of {@code tools/call}, the
	 * prompt of {@code prompts/get}.
	 * @return the name, or {@code null}
	 */
	public @Nullable String name() {
		return this.name;
	}

	/**
	 * Return the request a {@code notifications/cancelled} cancels.
	 * @return its id, or {@code null} when this is no cancellation
	 */
	public @Nullable String cancelledId() {
		return CANCELLED.equals(this.method) ? this.requestId : null;
	}

	public boolean isResponse() {
		return this.id != null && !this.hasMethod;
	}

	public boolean isError() {
		return this.error;
	}

	/**
	 * Return the code of an error response, when it is an integer that fits 32 bits.
	 * @return the code as text, or {@code null}
	 */
	public @Nullable String errorCode() {
		return this.errorCode;
	}

	public @Nullable String errorMessage() {
		return this.errorMessage;
	}

	/**
	 * Return whether a number of the line has a fraction or an exponent: Java may write
	 * it otherwise than the line does.
	 * @return whether one has
	 */
	public boolean hasFraction() {
		return this.fraction;
	}

	/**
	 * Return whether a result says {@code isError: true}: a tool that failed.
	 * @return whether it does
	 */
	public boolean isToolError() {
		return this.toolError;
	}

	/**
	 * Return this request with members added to its {@code params._meta}, a key already
	 * there kept: inserted where {@code _meta}, {@code params} or the request opens,
	 * every other character as it was.
	 * @param members the members to add, their values strings
	 * @return the new line with this one's facts, or this one when nothing could or had
	 * to be added
	 */
	public JsonRpcLine withMeta(Map<String, String> members) {
		if (this.insertAt < 0) {
			return this;
		}
		StringBuilder added = new StringBuilder();
		members.forEach((key, value) -> {
			if (this.metaKeys == null || !this.metaKeys.contains(key)) {
				quote(added.append((added.length() > 0) ? "," : ""), key).append(':');
				quote(added, value);
			}
		});
		if (added.length() == 0) {
			return this;
		}
		String open = switch (this.insertInto) {
			case META -> "";
			case PARAMS -> "\"_meta\":{";
			default -> "\"params\":{\"_meta\":{";
		};
		// every brace it opens is closed after the members
		String inserted = open + added + "}".repeat((int) open.chars().filter((c) -> c == '{').count());
		JsonRpcLine line = new JsonRpcLine(this.text.substring(0, this.insertAt) + inserted
				+ (this.insertEmpty ? "" : ",") + this.text.substring(this.insertAt));
		line.id = this.id;
		line.method = this.method;
		line.hasMethod = this.hasMethod;
		line.name = this.name;
		line.requestId = this.requestId;
		line.fraction = this.fraction;
		// it takes more members where these went
		line.insertAt = this.insertAt + open.length();
		line.insertInto = META;
		Set<String> keys = new LinkedHashSet<>(members.keySet());
		if (this.metaKeys != null) {
			keys.addAll(this.metaKeys);
		}
		line.metaKeys = keys;
		return line;
	}

	private static StringBuilder quote(StringBuilder json, String text) {
		json.append('"');
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '"' || c == '\\') {
				json.append('\\').append(c);
			}
			else if (c < 0x20) {
				json.append(String.format("\\u%04x", (int) c));
			}
			else {
				json.append(c);
			}
		}
		return json.append('"');
	}

	// The one pass: values are skipped without recursion; the members of the root, of
	// params, error, result and params._meta are looked at on the way

	private boolean parse() {
		// a byte order mark is skipped, as Jackson does
		this.at = (this.end > 0 && this.text.charAt(0) == '\uFEFF') ? 1 : 0;
		int depth = 0;
		while (true) {
			// every value but the root begins a member (its name read first) or an
			// element
			boolean member = depth > 0 && this.roles[depth - 1] != ARRAY;
			String key = member ? key(this.roles[depth - 1]) : null;
			if (member && key == null) {
				return false;
			}
			whitespace();
			if (this.at >= this.end) {
				return false;
			}
			char c = this.text.charAt(this.at);
			byte parent = (depth == 0) ? OTHER : this.roles[depth - 1];
			byte role = (depth == 0) ? ROOT : child(parent, key);
			if (c != '{' && (role == PARAMS || role == META)) {
				// by-position params, or params or _meta that is no object: nothing to
				// add to
				this.insertAt = -2;
			}
			if (c == '{' || c == '[') {
				if (depth == MAX_DEPTH) {
					return false;
				}
				open(c, parent, role, key, depth++);
				if (!is(this.at, (c == '{') ? '}' : ']')) {
					continue;
				}
				this.at++;
				depth--;
			}
			else if (!scalar(c, parent, key)) {
				return false;
			}
			depth = closed(depth);
			if (depth <= 0) {
				return depth == 0 && this.at == this.end;
			}
		}
	}

	/**
	 * After a value: close the objects and arrays it ends, up to the next member or
	 * element.
	 * @return the depth that goes on, 0 when the root ended, -1 when it is not valid
	 */
	private int closed(int depth) {
		int open = depth;
		while (true) {
			whitespace();
			if (open == 0) {
				return 0;
			}
			if (this.at >= this.end) {
				return -1;
			}
			char next = this.text.charAt(this.at++);
			if (next == ',') {
				return open;
			}
			if (next != ((this.roles[open - 1] != ARRAY) ? '}' : ']')) {
				return -1;
			}
			open--;
		}
	}

	/** Open an object or an array at a depth, and look past its opening whitespace. */
	private void open(char c, byte parent, byte role, @Nullable String key, int depth) {
		if (depth == this.roles.length) {
			this.roles = Arrays.copyOf(this.roles, depth * 2);
		}
		if (parent == ROOT && "method".equals(key)) {
			// a method of any value makes it no response
			this.hasMethod = true;
			this.method = null;
		}
		boolean object = c == '{';
		this.roles[depth] = object ? role : ARRAY;
		this.at++;
		if (object) {
			opened(role);
		}
		whitespace();
	}

	/** The role of a value: what its container is, and under which key. */
	private static byte child(byte parent, @Nullable String key) {
		if (parent == ROOT && key != null) {
			return switch (key) {
				case "params" -> PARAMS;
				case "error" -> ERROR;
				case "result" -> RESULT;
				default -> OTHER;
			};
		}
		return (parent == PARAMS && "_meta".equals(key)) ? META : OTHER;
	}

	/**
	 * Where members of {@code _meta} can go, at the deepest object that is on the way.
	 */
	private void opened(byte role) {
		this.error |= role == ERROR;
		if ((role == ROOT || role == PARAMS || role == META) && this.insertAt != -2) {
			if (role != META && this.insertInto == META) {
				return;
			}
			this.insertAt = this.at;
			this.insertInto = role;
			whitespace();
			this.insertEmpty = is(this.at, '}');
		}
	}

	/** Read a member's name and its colon; remember the names of {@code _meta}. */
	private @Nullable String key(byte role) {
		whitespace();
		// the names of other objects are skipped, not built
		String key = string(role != OTHER);
		whitespace();
		if (key == null || !is(this.at, ':')) {
			return null;
		}
		this.at++;
		if (role == META) {
			if (this.metaKeys == null) {
				this.metaKeys = new LinkedHashSet<>();
			}
			if (this.metaKeys.size() < MAX_META_KEYS) {
				this.metaKeys.add(key);
			}
		}
		return key;
	}

	private boolean scalar(char c, byte parent, @Nullable String key) {
		boolean wanted = key != null && parent != OTHER && parent != META;
		int start = this.at;
		if (c == '"') {
			String value = string(wanted);
			if (value != null && wanted) {
				take(parent, key, value, true, false);
			}
			return value != null;
		}
		boolean number = c != 't' && c != 'f' && c != 'n';
		if (!(number ? number() : literal((c == 't') ? "true" : (c == 'f') ? "false" : "null"))) {
			return false;
		}
		if (wanted) {
			String value = this.text.substring(start, this.at);
			take(parent, key, value, false, number && isInteger(value));
		}
		return true;
	}

	private void take(byte parent, String key, String value, boolean string, boolean integer) {
		// ids and names are strings or integers
		boolean idLike = string || integer;
		switch (parent) {
			case ROOT -> {
				if (key.equals("id") && idLike) {
					this.id = value;
				}
				else if (key.equals("method")) {
					this.hasMethod = true;
					this.method = string ? value : null;
				}
			}
			case PARAMS -> {
				if (key.equals("name") && idLike) {
					this.name = value;
				}
				else if (key.equals("requestId") && idLike) {
					this.requestId = value;
				}
			}
			case ERROR -> {
				if (key.equals("code") && integer) {
					this.errorCode = int32(value);
				}
				else if (key.equals("message") && string) {
					this.errorMessage = value;
				}
			}
			case RESULT -> this.toolError |= key.equals("isError") && "true".equals(value);
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

	/**
	 * Read a string, its quotes included: the text when asked for (the one unescape of
	 * mcp-stdio), else {@code ""}; {@code null} and no move when it is not valid.
	 */
	private @Nullable String string(boolean text) {
		if (!is(this.at, '"')) {
			return null;
		}
		int i = this.at + 1;
		StringBuilder unescaped = null;
		int plain = i;
		while (i < this.end) {
			char c = this.text.charAt(i);
			if (c == '"') {
				this.at = i + 1;
				if (!text) {
					return "";
				}
				return (unescaped == null) ? this.text.substring(plain, i)
						: unescaped.append(this.text, plain, i).toString();
			}
			if (c < 0x20) {
				return null;
			}
			if (c != '\\') {
				i++;
				continue;
			}
			if (i + 1 >= this.end) {
				return null;
			}
			if (unescaped == null) {
				unescaped = new StringBuilder();
			}
			unescaped.append(this.text, plain, i);
			i = unescape(i, unescaped);
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
	private int unescape(int i, StringBuilder unescaped) {
		char escaped = this.text.charAt(i + 1);
		switch (escaped) {
			case 'b' -> unescaped.append('\b');
			case 'f' -> unescaped.append('\f');
			case 'n' -> unescaped.append('\n');
			case 'r' -> unescaped.append('\r');
			case 't' -> unescaped.append('\t');
			case '"', '\\', '/' -> unescaped.append(escaped);
			case 'u' -> {
				if (i + 5 >= this.end || !hex(i + 2, i + 6)) {
					return -1;
				}
				unescaped.append((char) Integer.parseInt(this.text, i + 2, i + 6, 16));
				return i + 6;
			}
			default -> {
				return -1;
			}
		}
		return i + 2;
	}

	private boolean hex(int from, int to) {
		for (int i = from; i < to; i++) {
			// ASCII only, as JSON says: Character.digit also takes other scripts' digits
			if (!HexFormat.isHexDigit(this.text.charAt(i))) {
				return false;
			}
		}
		return true;
	}

	private boolean number() {
		int start = is(this.at, '-') ? this.at + 1 : this.at;
		int i = digits(start);
		if (i > 0 && this.text.charAt(start) == '0') {
			// a leading 0 is the whole integer part
			i = start + 1;
		}
		if (i > 0 && is(i, '.')) {
			this.fraction = true;
			i = digits(i + 1);
		}
		if (i > 0 && (is(i, 'e') || is(i, 'E'))) {
			this.fraction = true;
			i = digits((is(i + 1, '+') || is(i + 1, '-')) ? i + 2 : i + 1);
		}
		if (i < 0) {
			return false;
		}
		this.at = i;
		return true;
	}

	/** The end of the digits at {@code from}, -1 when there is none. */
	private int digits(int from) {
		int i = from;
		while (i < this.end && this.text.charAt(i) >= '0' && this.text.charAt(i) <= '9') {
			i++;
		}
		return (i > from) ? i : -1;
	}

	private boolean is(int i, char c) {
		return i < this.end && this.text.charAt(i) == c;
	}

	private boolean literal(String literal) {
		if (!this.text.startsWith(literal, this.at)) {
			return false;
		}
		this.at += literal.length();
		return true;
	}

	private void whitespace() {
		while (this.at < this.end) {
			char c = this.text.charAt(this.at);
			if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
				return;
			}
			this.at++;
		}
	}

	@Override
	public String toString() {
		return "JsonRpcLine[id=" + this.id + ", method=" + this.method + "]";
	}

}

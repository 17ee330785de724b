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
	static final int MAX_META_KEYS = 64;

	private static final String CANCELLED = "notifications/cancelled";

	static final byte OTHER = 0;

	static final byte ROOT = 1;

	static final byte PARAMS = 2;

	static final byte ERROR = 3;

	static final byte RESULT = 4;

	static final byte META = 5;

	/** The role of an array: its elements are of no interest. */
	static final byte ARRAY = 6;

	final String text;

	final int end;

	int at;

	/** While the line is read: the role of each object or array open, by depth. */
	byte[] roles = new byte[16];

	@Nullable String id;

	@Nullable String method;

	boolean hasMethod;

	@Nullable String name;

	@Nullable String requestId;

	boolean error;

	@Nullable String errorCode;

	@Nullable String errorMessage;

	boolean toolError;

	/** Whether a number has a fraction or an exponent. */
	boolean fraction;

	/** Where a member of {@code params._meta} can be inserted, -1 where none can. */
	int insertAt = -1;

	byte insertInto;

	boolean insertEmpty;

	@Nullable Set<String> metaKeys;

	JsonRpcLine(String text) {
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
		return JsonRpcScanner.parse(line) ? line : null;
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

	@Override
	public String toString() {
		return "JsonRpcLine[id=" + this.id + ", method=" + this.method + "]";
	}

}

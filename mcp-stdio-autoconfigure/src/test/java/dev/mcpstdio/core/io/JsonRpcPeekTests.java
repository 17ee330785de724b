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
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link JsonRpcPeek}: it must tell JSON from not JSON, and find the id and the
 * method, exactly as Jackson's streaming parser does (the oracle below, which it
 * replaced), on chosen lines and on thousands of mutations of real messages.
 *
 * @author mcp-stdio authors
 */
class JsonRpcPeekTests {

	private static final JsonFactory factory = JsonFactory.builder()
		.streamReadConstraints(StreamReadConstraints.builder()
			.maxStringLength(Integer.MAX_VALUE)
			.maxDocumentLength(-1)
			.maxNestingDepth(JsonRpcPeek.MAX_DEPTH)
			.build())
		.build();

	private static final List<String> MESSAGES = List.of(
			"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"isError\":false}}",
			"{\"jsonrpc\":\"2.0\",\"id\":\"a-1\",\"method\":\"roots/list\",\"params\":{}}",
			"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":[1,2.5,-3e2,true,null]}}",
			"{\"jsonrpc\":\"2.0\",\"id\":-12,\"error\":{\"code\":-32601,\"message\":\"Method \\\"x\\\" not found\\n\"}}",
			" { \"id\" : \"\\u0061\\t\\\\b\" , \"result\" : [ ] } ", "[1, {\"id\": 2}]", "\"just a string\"", "42",
			"{\"id\":1.5,\"result\":null}", "{\"id\":null,\"method\":\"m\"}", "{\"id\":1,\"id\":\"two\"}",
			"{\"\\u0069d\":9,\"met\\u0068od\":\"x\"}", "{\"a\":{\"id\":3},\"b\":[{\"method\":1}]}", "{}", "[]",
			"{\"id\":0}", "{\"id\":\"é ü 漢字\"}");

	private static final List<String> NOT_JSON = List.of("Server starting on stdio... (not JSON)", "{broken json",
			"[1, 2", "{\"id\":1,}", "{\"id\":01}", "{'id':1}", "{\"id\":1} trailing", "{\"id\":1}{\"id\":2}",
			"{\"a\":\"tab\there\"}", "{\"a\":\"bad \\x escape\"}", "{\"a\":\"\\u12\"}", "{\"a\":tru}", "{\"a\":-}",
			"{\"a\":1.}", "{\"a\":1e}", "{\"a\" 1}", "{\"a\":[1 2]}", "{,}", "[,1]", "{\"a\":NaN}", "// comment", "");

	@Test
	void readsLinesAsJacksonDoes() {
		for (String line : MESSAGES) {
			assertSameAsJackson(line);
			assertThat(peek(line)).as(line).isNotNull();
		}
		for (String line : NOT_JSON) {
			assertSameAsJackson(line);
			assertThat(peek(line)).as(line).isNull();
		}
	}

	@Test
	void findsTheIdAndTheMethod() {
		assertThat(peek(MESSAGES.get(0))).isEqualTo(new JsonRpcPeek.Peeked("7", false));
		assertThat(peek(MESSAGES.get(0)).isResponse()).isTrue();
		assertThat(peek(MESSAGES.get(1))).isEqualTo(new JsonRpcPeek.Peeked("a-1", true));
		assertThat(peek(" { \"id\" : \"\\u0061\\t\\\\b\" , \"result\" : [ ] } "))
			.isEqualTo(new JsonRpcPeek.Peeked("a\t\\b", false));
		assertThat(peek("{\"\\u0069d\":9,\"met\\u0068od\":\"x\"}")).isEqualTo(new JsonRpcPeek.Peeked("9", true));
		assertThat(peek("{\"a\":{\"id\":3}}")).isEqualTo(new JsonRpcPeek.Peeked(null, false));
	}

	@Test
	void aResponseWithAnInvalidByteIsStillAResponse() {
		byte[] line = "{\"id\":5,\"result\":\"bad X byte\"}".getBytes(StandardCharsets.UTF_8);
		line[24] = (byte) 0xC3;
		assertThat(JsonRpcPeek.peek(line, line.length)).isEqualTo(new JsonRpcPeek.Peeked("5", false));
	}

	@Test
	void nestingIsBoundedWithoutRecursion() {
		String deep = "[".repeat(JsonRpcPeek.MAX_DEPTH) + "]".repeat(JsonRpcPeek.MAX_DEPTH);
		assertThat(peek(deep)).isNotNull();
		String deeper = "[".repeat(JsonRpcPeek.MAX_DEPTH + 1) + "]".repeat(JsonRpcPeek.MAX_DEPTH + 1);
		assertThat(peek(deeper)).isNull();
		assertSameAsJackson(deep);
		assertSameAsJackson(deeper);
	}

	@Test
	void mutationsOfRealMessagesAreReadAsJacksonReadsThem() {
		Random random = new Random(15);
		String alphabet = "{}[]\":,\\ \t0123456789-+.eEtrufalsnidmhoxé\u0001";
		List<String> lines = new ArrayList<>();
		for (int i = 0; i < 20_000; i++) {
			StringBuilder line = new StringBuilder(MESSAGES.get(random.nextInt(MESSAGES.size())));
			int edits = 1 + random.nextInt(3);
			for (int e = 0; e < edits && line.length() > 0; e++) {
				int at = random.nextInt(line.length());
				char c = alphabet.charAt(random.nextInt(alphabet.length()));
				switch (random.nextInt(3)) {
					case 0 -> line.insert(at, c);
					case 1 -> line.deleteCharAt(at);
					default -> line.setCharAt(at, c);
				}
			}
			lines.add(line.toString());
		}
		int valid = 0;
		for (String line : lines) {
			assertSameAsJackson(line);
			valid += (peek(line) != null) ? 1 : 0;
		}
		// Both kinds were tried
		assertThat(valid).isBetween(1000, 19_000);
	}

	private static JsonRpcPeek.@Nullable Peeked peek(String line) {
		byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
		return JsonRpcPeek.peek(bytes, bytes.length);
	}

	private static void assertSameAsJackson(String line) {
		byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
		assertThat(JsonRpcPeek.peek(bytes, bytes.length)).as(line).isEqualTo(jackson(bytes));
	}

	/** What the peek did with Jackson's streaming parser before. */
	private static JsonRpcPeek.@Nullable Peeked jackson(byte[] line) {
		try (JsonParser parser = factory.createParser(ObjectReadContext.empty(), line, 0, line.length)) {
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
			return new JsonRpcPeek.Peeked(id, method);
		}
		catch (JacksonException ex) {
			return null;
		}
	}

}

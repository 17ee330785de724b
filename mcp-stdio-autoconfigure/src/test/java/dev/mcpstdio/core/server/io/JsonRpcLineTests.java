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

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link JsonRpcLine}.
 *
 * @author mcp-stdio authors
 */
class JsonRpcLineTests {

	// What JSON is, the id and the method: exactly as Jackson's streaming parser reads
	// them (the oracle below), on chosen lines and on thousands of mutations of real
	// messages

	private static final JsonFactory factory = JsonFactory.builder()
		.streamReadConstraints(StreamReadConstraints.builder()
			.maxStringLength(Integer.MAX_VALUE)
			.maxDocumentLength(-1)
			.maxNestingDepth(JsonRpcLine.MAX_DEPTH)
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
			"{\"id\":0}", "{\"id\":\"é ü 漢字\"}", "{\"id\":1,\"method\":{\"m\":\"x\"}}", "{\"id\":2,\"method\":[]}",
			"{\"id\":3,\"method\":\"x\",\"method\":7}", "{\"id\":4,\"method\":null}");

	private static final List<String> NOT_JSON = List.of("Server starting on stdio... (not JSON)", "{broken json",
			"[1, 2", "{\"id\":1,}", "{\"id\":01}", "{'id':1}", "{\"id\":1} trailing", "{\"id\":1}{\"id\":2}",
			"{\"a\":\"tab\there\"}", "{\"a\":\"bad \\x escape\"}", "{\"a\":\"\\u12\"}",
			"{\"a\":\"\\u\u0660\u0660\u0664\u0661\"}", "{\"a\":tru}", "{\"a\":-}", "{\"a\":1.}", "{\"a\":1e}",
			"{\"a\" 1}", "{\"a\":[1 2]}", "{,}", "[,1]", "{\"a\":NaN}", "// comment", "");

	private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

	private static final Map<String, String> FIELDS = Map.of("traceparent", TRACEPARENT);

	@Test
	void readsLinesAsJacksonDoes() {
		for (String line : MESSAGES) {
			assertSameAsJackson(line);
			assertThat(JsonRpcLine.scan(line)).as(line).isNotNull();
		}
		for (String line : NOT_JSON) {
			assertSameAsJackson(line);
			assertThat(JsonRpcLine.scan(line)).as(line).isNull();
		}
	}

	@Test
	void findsTheIdAndTheMethod() {
		assertThat(seen(MESSAGES.get(0))).isEqualTo(new Seen("7", null, true));
		assertThat(seen(MESSAGES.get(1))).isEqualTo(new Seen("a-1", "roots/list", false));
		assertThat(seen(" { \"id\" : \"\\u0061\\t\\\\b\" , \"result\" : [ ] } "))
			.isEqualTo(new Seen("a\t\\b", null, true));
		assertThat(seen("{\"\\u0069d\":9,\"met\\u0068od\":\"x\"}")).isEqualTo(new Seen("9", "x", false));
		assertThat(seen("{\"a\":{\"id\":3}}")).isEqualTo(new Seen(null, null, false));
		// a method of any value makes it no response
		assertThat(seen("{\"id\":1,\"method\":{\"m\":\"x\"}}")).isEqualTo(new Seen("1", null, false));
		assertThat(seen("{\"id\":3,\"method\":\"x\",\"method\":7}")).isEqualTo(new Seen("3", null, false));
	}

	@Test
	void aResponseWithAnInvalidByteIsStillAResponse() {
		byte[] line = "{\"id\":5,\"result\":\"bad X byte\"}".getBytes(StandardCharsets.UTF_8);
		line[24] = (byte) 0xC3;
		// decoded as the stdout reader decodes it: the byte becomes U+FFFD
		String text = new String(line, StandardCharsets.UTF_8);
		assertThat(text).contains("\uFFFD");
		assertThat(seen(text)).isEqualTo(new Seen("5", null, true));
	}

	@Test
	void nestingIsBoundedWithoutRecursion() {
		String deep = "[".repeat(JsonRpcLine.MAX_DEPTH) + "]".repeat(JsonRpcLine.MAX_DEPTH);
		assertThat(JsonRpcLine.scan(deep)).isNotNull();
		String deeper = "[".repeat(JsonRpcLine.MAX_DEPTH + 1) + "]".repeat(JsonRpcLine.MAX_DEPTH + 1);
		assertThat(JsonRpcLine.scan(deeper)).isNull();
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
			valid += (JsonRpcLine.scan(line) != null) ? 1 : 0;
		}
		// Both kinds were tried
		assertThat(valid).isBetween(1000, 19_000);
	}

	// What telemetry reads out of requests and responses, in the shapes the MCP SDKs
	// write them

	@Test
	void aToolCallGivesItsMethodAndToolWhateverTheOrderAndSkipsTheArguments() {
		assertThat(request("{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"id\":\"7-1\","
				+ "\"params\":{\"name\":\"echo\",\"arguments\":{\"name\":\"not the tool\",\"n\":[1,{\"a\":2}]}}}"))
			.isEqualTo(new Request("tools/call", "echo"));
		// params first, the tool's name after its arguments (whose own name is not taken)
		assertThat(request("{\"params\":{\"arguments\":{\"name\":\"x\"},\"_meta\":{\"name\":\"y\"},"
				+ "\"name\":\"search\"},\"id\":1,\"method\":\"tools/call\",\"jsonrpc\":\"2.0\"}"))
			.isEqualTo(new Request("tools/call", "search"));
		assertThat(request("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"prompts/get\","
				+ "\"params\":{\"name\":\"review\",\"arguments\":{}}}"))
			.isEqualTo(new Request("prompts/get", "review"));
	}

	@Test
	void aRequestWithoutParamsOrNotJsonGivesWhatItHas() {
		assertThat(request("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}"))
			.isEqualTo(new Request("tools/list", null));
		assertThat(request("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":[1]}"))
			.isEqualTo(new Request("tools/call", null));
		assertThat(request("not json")).isEqualTo(Request.UNKNOWN);
		assertThat(request("[1,2]")).isEqualTo(Request.UNKNOWN);
	}

	@Test
	void aResultGivesItsIdAndWhetherAToolFailed() {
		assertThat(response("{\"jsonrpc\":\"2.0\",\"id\":\"7-1\",\"result\":{\"content\":[]}}"))
			.isEqualTo(new Response("7-1", false, null, null, false));
		// as the TypeScript SDK writes it: the result first, isError after the content
		assertThat(response("{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"no\","
				+ "\"isError\":false}],\"isError\":true},\"jsonrpc\":\"2.0\",\"id\":12}"))
			.isEqualTo(new Response("12", false, null, null, true));
		assertThat(response("{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"isError\":false}}"))
			.isEqualTo(new Response("5", false, null, null, false));
	}

	@Test
	void anErrorGivesItsCodeAndMessage() {
		assertThat(response("{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32602,"
				+ "\"message\":\"Unknown tool: nope\",\"data\":{\"x\":[1]}}}"))
			.isEqualTo(new Response("4", true, "-32602", "Unknown tool: nope", false));
		assertThat(response("{\"error\":{\"message\":\"no code\"},\"id\":\"a\",\"jsonrpc\":\"2.0\"}"))
			.isEqualTo(new Response("a", true, null, "no code", false));
	}

	@Test
	void requestsAndNotificationsOfTheServerAndWhatIsNotJsonAreNoResponses() {
		assertThat(response("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"roots/list\"}")).isNull();
		assertThat(response(
				"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"," + "\"params\":{\"level\":\"info\"}}"))
			.isNull();
		assertThat(response("{\"jsonrpc\":\"2.0\",\"result\":{}}")).isNull();
		assertThat(response("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700}}")).isNull();
		assertThat(response("garbage")).isNull();
	}

	@Test
	void escapesWhitespaceAndBracketsInStringsAreFollowed() {
		assertThat(request("{ \"jsonrpc\" : \"2.0\" , \"method\" : \"tools\\/call\" , \"id\" : 1 ,"
				+ " \"params\" : { \"arguments\" : { \"s\" : \"}{\\\"][\\\\\" , \"a\" : [ { } , [ ] ] } ,"
				+ " \"na\\u006de\" : \"ech\\u006f\" } }"))
			.isEqualTo(new Request("tools/call", "echo"));
		assertThat(response(
				"{ \"id\" : -5 , \"result\" : { \"content\" : [ \"}\" , \"\\\\\" ] ," + " \"isError\" : true } }"))
			.isEqualTo(new Response("-5", false, null, null, true));
		assertThat(response("{\"id\":2,\"error\":{\"code\":\"x\",\"message\":\"a\\nb \\\"q\\\"\"}}"))
			.isEqualTo(new Response("2", true, null, "a\nb \"q\"", false));
	}

	@Test
	void whatIsCutShortOrNotAnIdGivesWhatWasRead() {
		// JsonRpcFacts also read a method or an id out of a line cut short: JsonRpcLine
		// takes no fact from what is not JSON (JsonRpcLine.of)
		assertThat(response("{\"id\":\"abc")).isNull();
		assertThat(response("{\"id\":1.5,\"result\":{}}")).isNull();
		assertThat(request("{\"method\" \"x\"}")).isEqualTo(Request.UNKNOWN);
		assertThat(request("")).isEqualTo(Request.UNKNOWN);
		assertThat(request("{\"params\":{\"a\":[[[[\"]]]\"]]]]},\"method\":\"ping\"}"))
			.isEqualTo(new Request("ping", null));
	}

	@Test
	void aCancellationGivesTheIdItCancels() {
		assertThat(JsonRpcLine
			.of("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
					+ "\"params\":{\"requestId\":\"7-3\",\"reason\":\"timeout\"}}")
			.cancelledId()).isEqualTo("7-3");
		assertThat(JsonRpcLine
			.of("{\"params\":{\"requestId\":42}," + "\"method\":\"notifications/cancelled\",\"jsonrpc\":\"2.0\"}")
			.cancelledId()).isEqualTo("42");
		assertThat(JsonRpcLine
			.of("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"," + "\"params\":{\"requestId\":\"7-3\"}}")
			.cancelledId()).isNull();
	}

	// The trace context goes into params._meta, merged, and nothing else of the request
	// changes

	@Test
	void aRequestWithParamsGetsAMetaBeforeItsOtherMembers() {
		String request = "{\"jsonrpc\":\"2.0\",\"id\":\"7-1\",\"method\":\"tools/call\","
				+ "\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}}";
		assertThat(withMeta(request, FIELDS))
			.isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":\"7-1\",\"method\":\"tools/call\",\"params\":{\"_meta\":{"
					+ "\"traceparent\":\"" + TRACEPARENT + "\"},\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}}");
	}

	@Test
	void aRequestWithoutParamsOrWithEmptyParamsGetsThem() {
		assertThat(withMeta("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", FIELDS))
			.isEqualTo("{\"params\":{\"_meta\":{\"traceparent\":\"" + TRACEPARENT
					+ "\"}},\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
		assertThat(withMeta("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{ }}", FIELDS))
			.isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"_meta\":{\"traceparent\":\""
					+ TRACEPARENT + "\"} }}");
	}

	@Test
	void anExistingMetaIsMergedAndItsKeysAreKept() {
		Map<String, String> fields = new LinkedHashMap<>();
		fields.put("traceparent", TRACEPARENT);
		fields.put("tracestate", "rojo=00f067aa0ba902b7");
		String request = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
				+ "\"_meta\":{\"progressToken\":7,\"tracestate\":\"theirs=1\"}}}";
		String injected = withMeta(request, fields);
		assertThat(injected).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
				+ "\"name\":\"echo\",\"_meta\":{\"traceparent\":\"" + TRACEPARENT
				+ "\",\"progressToken\":7,\"tracestate\":\"theirs=1\"}}}");
		JsonNode meta = JsonMapper.shared().readTree(injected).get("params").get("_meta");
		assertThat(meta.propertyNames()).containsExactly("traceparent", "progressToken", "tracestate");
		// every key there already: nothing to add
		JsonRpcLine again = JsonRpcLine.of(injected);
		assertThat(again.withMeta(fields)).isSameAs(again);
		assertThat(withMeta("{\"id\":3,\"method\":\"ping\",\"params\":{\"_meta\":{}}}",
				Map.of("traceparent", TRACEPARENT)))
			.isEqualTo(
					"{\"id\":3,\"method\":\"ping\",\"params\":{\"_meta\":{\"traceparent\":\"" + TRACEPARENT + "\"}}}");
	}

	@Test
	void numbersEscapesAndOrderStayAsTheSenderWroteThem() {
		String request = "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"calc\","
				+ "\"arguments\":{\"x\":1.10,\"big\":123456789012345678901234567890,\"e\":1E+3,"
				+ "\"s\":\"\\u00e9\\n\\\"q\\\"\",\"z\":-0.0}}}";
		String injected = withMeta(request, FIELDS);
		assertThat(injected.replace("\"_meta\":{\"traceparent\":\"" + TRACEPARENT + "\"},", "")).isEqualTo(request);
		assertThat(injected).doesNotContain("\n");
	}

	@Test
	void valuesAreEscaped() {
		String injected = withMeta("{\"id\":5,\"method\":\"ping\",\"params\":{}}",
				Map.of("baggage", "user=\"a\\b\"\n"));
		assertThat(JsonMapper.shared().readTree(injected).get("params").get("_meta").get("baggage").asString())
			.isEqualTo("user=\"a\\b\"\n");
		assertThat(injected).doesNotContain("\n");
	}

	@Test
	void whatCannotTakeAMetaIsLeftAlone() {
		for (String line : List.of("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"x\",\"params\":[1,2]}",
				"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"x\",\"params\":{\"_meta\":null}}",
				"{\"jsonrpc\":\"2.0\",\"id\":6,", "[{\"id\":1}]")) {
			JsonRpcLine read = JsonRpcLine.of(line);
			assertThat(read.withMeta(FIELDS)).as(line).isSameAs(read);
		}
	}

	@Test
	void aLineWithMetaHasTheFactsOfTheLineItWasMadeOf() {
		JsonRpcLine request = JsonRpcLine.of("{\"jsonrpc\":\"2.0\",\"id\":\"7-1\",\"method\":\"tools/call\","
				+ "\"params\":{\"name\":\"echo\",\"arguments\":{\"n\":1.5}}}");
		JsonRpcLine injected = request.withMeta(FIELDS);
		assertThat(injected).isNotSameAs(request);
		assertThat(facts(injected)).isEqualTo(facts(request)).isEqualTo(facts(JsonRpcLine.scan(injected.text())));
		// and takes more members, a key it has kept
		JsonRpcLine more = injected.withMeta(Map.of("traceparent", "theirs", "baggage", "k=v"));
		assertThat(JsonMapper.shared().readTree(more.text()).get("params").get("_meta").propertyNames())
			.containsExactlyInAnyOrder("traceparent", "baggage");
		assertThat(more.text()).contains(TRACEPARENT).doesNotContain("theirs");
		assertThat(more.withMeta(Map.of("baggage", "k=w"))).isSameAs(more);
		assertThat(facts(more)).isEqualTo(facts(request));
	}

	private static String withMeta(String request, Map<String, String> fields) {
		return JsonRpcLine.of(request).withMeta(fields).text();
	}

	private static @Nullable Seen seen(String line) {
		JsonRpcLine read = JsonRpcLine.scan(line);
		return (read != null) ? new Seen(read.id(), read.method(), read.isResponse()) : null;
	}

	private static Request request(String line) {
		JsonRpcLine read = JsonRpcLine.of(line);
		return new Request(read.method(), read.name());
	}

	private static @Nullable Response response(String line) {
		JsonRpcLine read = JsonRpcLine.of(line);
		return read.isResponse()
				? new Response(read.id(), read.isError(), read.errorCode(), read.errorMessage(), read.isToolError())
				: null;
	}

	private static List<@Nullable Object> facts(@Nullable JsonRpcLine line) {
		assertThat(line).isNotNull();
		return Arrays.asList(line.id(), line.method(), line.name(), line.cancelledId(), line.isResponse(),
				line.isError(), line.errorCode(), line.errorMessage(), line.isToolError(), line.hasFraction());
	}

	private static void assertSameAsJackson(String line) {
		assertThat(seen(line)).as(line).isEqualTo(jackson(line));
	}

	/** What Jackson's streaming parser reads of a line: the peek's oracle before. */
	private static @Nullable Seen jackson(String line) {
		try (JsonParser parser = factory.createParser(ObjectReadContext.empty(), line)) {
			JsonToken first = parser.nextToken();
			if (first == null) {
				return null;
			}
			String id = null;
			String method = null;
			boolean hasMethod = false;
			if (first == JsonToken.START_OBJECT) {
				JsonToken token;
				while ((token = parser.nextToken()) == JsonToken.PROPERTY_NAME) {
					String name = parser.currentName();
					JsonToken value = parser.nextToken();
					if ("id".equals(name) && (value == JsonToken.VALUE_STRING || value == JsonToken.VALUE_NUMBER_INT)) {
						id = parser.getString();
					}
					else if ("method".equals(name)) {
						hasMethod = true;
						method = (value == JsonToken.VALUE_STRING) ? parser.getString() : null;
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
			return new Seen(id, method, id != null && !hasMethod);
		}
		catch (JacksonException ex) {
			return null;
		}
	}

	/** The id, the method and whether it is a response, as read. */
	private record Seen(@Nullable String id, @Nullable String method, boolean response) {

	}

	/** What a request says: its method and the tool or prompt it names. */
	private record Request(@Nullable String method, @Nullable String name) {

		static final Request UNKNOWN = new Request(null, null);

	}

	/** What a response says. */
	private record Response(String id, boolean error, @Nullable String errorCode, @Nullable String errorMessage,
			boolean isError) {

	}

}

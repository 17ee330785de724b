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

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link TraceContextInjector}: the trace context goes into
 * {@code params._meta}, merged, and nothing else of the request changes.
 *
 * @author mcp-stdio authors
 */
class TraceContextInjectorTests {

	private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

	private static final Map<String, String> FIELDS = Map.of("traceparent", TRACEPARENT);

	@Test
	void aRequestWithParamsGetsAMetaBeforeItsOtherMembers() {
		String request = "{\"jsonrpc\":\"2.0\",\"id\":\"7-1\",\"method\":\"tools/call\","
				+ "\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}}";
		assertThat(TraceContextInjector.inject(request, FIELDS))
			.isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":\"7-1\",\"method\":\"tools/call\",\"params\":{\"_meta\":{"
					+ "\"traceparent\":\"" + TRACEPARENT + "\"},\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}}");
	}

	@Test
	void aRequestWithoutParamsOrWithEmptyParamsGetsThem() {
		assertThat(TraceContextInjector.inject("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", FIELDS))
			.isEqualTo("{\"params\":{\"_meta\":{\"traceparent\":\"" + TRACEPARENT
					+ "\"}},\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
		assertThat(TraceContextInjector.inject("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{ }}",
				FIELDS))
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
		String injected = TraceContextInjector.inject(request, fields);
		assertThat(injected).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
				+ "\"name\":\"echo\",\"_meta\":{\"traceparent\":\"" + TRACEPARENT
				+ "\",\"progressToken\":7,\"tracestate\":\"theirs=1\"}}}");
		JsonNode meta = JsonMapper.shared().readTree(injected).get("params").get("_meta");
		assertThat(meta.propertyNames()).containsExactly("traceparent", "progressToken", "tracestate");
		// every key there already: nothing to add
		assertThat(TraceContextInjector.inject(injected, fields)).isSameAs(injected);
		assertThat(TraceContextInjector.inject("{\"id\":3,\"method\":\"ping\",\"params\":{\"_meta\":{}}}",
				Map.of("traceparent", TRACEPARENT)))
			.isEqualTo(
					"{\"id\":3,\"method\":\"ping\",\"params\":{\"_meta\":{\"traceparent\":\"" + TRACEPARENT + "\"}}}");
	}

	@Test
	void numbersEscapesAndOrderStayAsTheSenderWroteThem() {
		String request = "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"calc\","
				+ "\"arguments\":{\"x\":1.10,\"big\":123456789012345678901234567890,\"e\":1E+3,"
				+ "\"s\":\"\\u00e9\\n\\\"q\\\"\",\"z\":-0.0}}}";
		String injected = TraceContextInjector.inject(request, FIELDS);
		assertThat(injected.replace("\"_meta\":{\"traceparent\":\"" + TRACEPARENT + "\"},", "")).isEqualTo(request);
		assertThat(injected).doesNotContain("\n");
	}

	@Test
	void valuesAreEscaped() {
		String injected = TraceContextInjector.inject("{\"id\":5,\"method\":\"ping\",\"params\":{}}",
				Map.of("baggage", "user=\"a\\b\"\n"));
		assertThat(JsonMapper.shared().readTree(injected).get("params").get("_meta").get("baggage").asString())
			.isEqualTo("user=\"a\\b\"\n");
		assertThat(injected).doesNotContain("\n");
	}

	@Test
	void whatCannotTakeAMetaIsLeftAlone() {
		String positional = "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"x\",\"params\":[1,2]}";
		assertThat(TraceContextInjector.inject(positional, FIELDS)).isSameAs(positional);
		String nullMeta = "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"x\",\"params\":{\"_meta\":null}}";
		assertThat(TraceContextInjector.inject(nullMeta, FIELDS)).isSameAs(nullMeta);
		String notJson = "{\"jsonrpc\":\"2.0\",\"id\":6,";
		assertThat(TraceContextInjector.inject(notJson, FIELDS)).isSameAs(notJson);
		String array = "[{\"id\":1}]";
		assertThat(TraceContextInjector.inject(array, FIELDS)).isSameAs(array);
	}

}

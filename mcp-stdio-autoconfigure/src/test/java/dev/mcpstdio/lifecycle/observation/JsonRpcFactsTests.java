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

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link JsonRpcFacts}: what telemetry reads out of requests and responses, in
 * the shapes the MCP SDKs write them.
 *
 * @author mcp-stdio authors
 */
class JsonRpcFactsTests {

	@Test
	void aToolCallGivesItsMethodAndToolWhateverTheOrderAndSkipsTheArguments() {
		assertThat(JsonRpcFacts.request("{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"id\":\"7-1\","
				+ "\"params\":{\"name\":\"echo\",\"arguments\":{\"name\":\"not the tool\",\"n\":[1,{\"a\":2}]}}}"))
			.isEqualTo(new JsonRpcFacts.Request("tools/call", "echo"));
		// params first, the tool's name after its arguments (whose own name is not taken)
		assertThat(JsonRpcFacts.request("{\"params\":{\"arguments\":{\"name\":\"x\"},\"_meta\":{\"name\":\"y\"},"
				+ "\"name\":\"search\"},\"id\":1,\"method\":\"tools/call\",\"jsonrpc\":\"2.0\"}"))
			.isEqualTo(new JsonRpcFacts.Request("tools/call", "search"));
		assertThat(JsonRpcFacts.request("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"prompts/get\","
				+ "\"params\":{\"name\":\"review\",\"arguments\":{}}}"))
			.isEqualTo(new JsonRpcFacts.Request("prompts/get", "review"));
	}

	@Test
	void aRequestWithoutParamsOrNotJsonGivesWhatItHas() {
		assertThat(JsonRpcFacts.request("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}"))
			.isEqualTo(new JsonRpcFacts.Request("tools/list", null));
		assertThat(JsonRpcFacts.request("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":[1]}"))
			.isEqualTo(new JsonRpcFacts.Request("tools/call", null));
		assertThat(JsonRpcFacts.request("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"na"))
			.isEqualTo(new JsonRpcFacts.Request("tools/call", null));
		assertThat(JsonRpcFacts.request("not json")).isEqualTo(JsonRpcFacts.Request.UNKNOWN);
		assertThat(JsonRpcFacts.request("[1,2]")).isEqualTo(JsonRpcFacts.Request.UNKNOWN);
	}

	@Test
	void aResultGivesItsIdAndWhetherAToolFailed() {
		assertThat(JsonRpcFacts.response("{\"jsonrpc\":\"2.0\",\"id\":\"7-1\",\"result\":{\"content\":[]}}"))
			.isEqualTo(new JsonRpcFacts.Response("7-1", false, null, null, false));
		// as the TypeScript SDK writes it: the result first, isError after the content
		assertThat(JsonRpcFacts.response("{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"no\","
				+ "\"isError\":false}],\"isError\":true},\"jsonrpc\":\"2.0\",\"id\":12}"))
			.isEqualTo(new JsonRpcFacts.Response("12", false, null, null, true));
		assertThat(JsonRpcFacts.response("{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"isError\":false}}"))
			.isEqualTo(new JsonRpcFacts.Response("5", false, null, null, false));
	}

	@Test
	void anErrorGivesItsCodeAndMessage() {
		assertThat(JsonRpcFacts.response("{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32602,"
				+ "\"message\":\"Unknown tool: nope\",\"data\":{\"x\":[1]}}}"))
			.isEqualTo(new JsonRpcFacts.Response("4", true, "-32602", "Unknown tool: nope", false));
		assertThat(JsonRpcFacts.response("{\"error\":{\"message\":\"no code\"},\"id\":\"a\",\"jsonrpc\":\"2.0\"}"))
			.isEqualTo(new JsonRpcFacts.Response("a", true, null, "no code", false));
	}

	@Test
	void requestsAndNotificationsOfTheServerAndWhatIsNotJsonAreNoResponses() {
		assertThat(JsonRpcFacts.response("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"roots/list\"}")).isNull();
		assertThat(JsonRpcFacts.response(
				"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"," + "\"params\":{\"level\":\"info\"}}"))
			.isNull();
		assertThat(JsonRpcFacts.response("{\"jsonrpc\":\"2.0\",\"result\":{}}")).isNull();
		assertThat(JsonRpcFacts.response("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700}}")).isNull();
		assertThat(JsonRpcFacts.response("garbage")).isNull();
	}

	@Test
	void escapesWhitespaceAndBracketsInStringsAreFollowed() {
		assertThat(JsonRpcFacts.request("{ \"jsonrpc\" : \"2.0\" , \"method\" : \"tools\\/call\" , \"id\" : 1 ,"
				+ " \"params\" : { \"arguments\" : { \"s\" : \"}{\\\"][\\\\\" , \"a\" : [ { } , [ ] ] } ,"
				+ " \"na\\u006de\" : \"ech\\u006f\" } }"))
			.isEqualTo(new JsonRpcFacts.Request("tools/call", "echo"));
		assertThat(JsonRpcFacts.response(
				"{ \"id\" : -5 , \"result\" : { \"content\" : [ \"}\" , \"\\\\\" ] ," + " \"isError\" : true } }"))
			.isEqualTo(new JsonRpcFacts.Response("-5", false, null, null, true));
		assertThat(JsonRpcFacts.response("{\"id\":2,\"error\":{\"code\":\"x\",\"message\":\"a\\nb \\\"q\\\"\"}}"))
			.isEqualTo(new JsonRpcFacts.Response("2", true, null, "a\nb \"q\"", false));
	}

	@Test
	void whatIsCutShortOrNotAnIdGivesWhatWasRead() {
		assertThat(JsonRpcFacts.response("{\"id\":\"abc")).isNull();
		assertThat(JsonRpcFacts.response("{\"id\":1.5,\"result\":{}}")).isNull();
		assertThat(JsonRpcFacts.response("{\"id\":7,\"result\":{\"content\":[{\"text\":\"cut"))
			.isEqualTo(new JsonRpcFacts.Response("7", false, null, null, false));
		assertThat(JsonRpcFacts.request("{\"method\":\"x\",\"params\":{\"name\":\""))
			.isEqualTo(new JsonRpcFacts.Request("x", null));
		assertThat(JsonRpcFacts.request("{\"method\" \"x\"}")).isEqualTo(JsonRpcFacts.Request.UNKNOWN);
		assertThat(JsonRpcFacts.request("")).isEqualTo(JsonRpcFacts.Request.UNKNOWN);
		assertThat(JsonRpcFacts.request("{\"params\":{\"a\":[[[[\"]]]\"]]]]},\"method\":\"ping\"}"))
			.isEqualTo(new JsonRpcFacts.Request("ping", null));
	}

	@Test
	void aCancellationGivesTheIdItCancels() {
		assertThat(JsonRpcFacts.cancelledRequestId("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
				+ "\"params\":{\"requestId\":\"7-3\",\"reason\":\"timeout\"}}"))
			.isEqualTo("7-3");
		assertThat(JsonRpcFacts.cancelledRequestId(
				"{\"params\":{\"requestId\":42}," + "\"method\":\"notifications/cancelled\",\"jsonrpc\":\"2.0\"}"))
			.isEqualTo("42");
		assertThat(JsonRpcFacts.cancelledRequestId(
				"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"," + "\"params\":{\"requestId\":\"7-3\"}}"))
			.isNull();
	}

}

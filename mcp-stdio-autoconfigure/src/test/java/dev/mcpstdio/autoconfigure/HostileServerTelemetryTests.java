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

package dev.mcpstdio.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import brave.handler.MutableSpan;
import dev.mcpstdio.ai.TestMcpServer;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A hostile server's values in what mcp-stdio makes of them: span names, span errors,
 * low-cardinality tags, log lines and the stderr tail the endpoint shows. Each is bounded
 * in length, holds none of the server's secret values and no control character.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(OutputCaptureExtension.class)
@ExtendWith(NoProcessLeft.class)
class HostileServerTelemetryTests {

	private static final String KEY = "up-7f1c0e9a5b2d";

	private static final String ESCAPES = "\\u001b[2J\\u001b[31mFAKE ERROR\\rINFO forged";

	private final Fixtures fixtures;

	HostileServerTelemetryTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void spanNamesTagsAndErrorsAreMaskedBoundedAndPrintable() {
		runner().run((context) -> {
			McpStdioServer server = context.getBean(McpStdioServers.class).get("hostile");
			call(server, "h-1", "leaky_error", "{}");
			call(server, "h-2", "tool_" + KEY, "{}");
			call(server, "h-3", "x".repeat(300), "{}");
			call(server, "h-4", "\\u001b[31mred\\r", "{}");
			// a JSON-RPC error whose code has 200,000 digits
			call(server, "h-5", "huge_code", "{\"digits\":200000}");
			List<MutableSpan> spans = context.getBean(RequestTracingTests.Spans.class).spans;
			Await.within(Duration.ofSeconds(20)).until("five spans", () -> spans.size() >= 5);
			MutableSpan leaky = span(spans, "h-1");
			assertThat(leaky.error()).hasMessage("upstream rejected key ******");
			MutableSpan secret = span(spans, "h-2");
			assertThat(secret.name()).isEqualTo("tools/call tool_******");
			assertThat(secret.tags()).containsEntry("gen_ai.tool.name", "tool_******");
			MutableSpan long300 = span(spans, "h-3");
			assertThat(long300.name()).isEqualTo("tools/call _OTHER");
			assertThat(long300.tags()).containsEntry("gen_ai.tool.name", "_OTHER");
			MutableSpan escaped = span(spans, "h-4");
			assertThat(escaped.tags()).containsEntry("gen_ai.tool.name", "\\u001B[31mred\\u000D");
			MutableSpan huge = span(spans, "h-5");
			assertThat(huge.tags()).containsEntry("error.type", "_OTHER");
			for (MutableSpan span : spans) {
				List<String> values = new ArrayList<>(span.tags().values());
				values.add(span.name());
				values.add((span.error() != null) ? span.error().getMessage() : "");
				assertThat(values).allSatisfy((value) -> assertThat(value).hasSizeLessThanOrEqualTo(1100)
					.doesNotContain(KEY)
					.doesNotContain("\u001b")
					.doesNotContain("\r"));
			}
		});
	}

	@Test
	void aServersStderrAndStdoutReachTheLogAndTheTailEscapedMaskedAndBounded(CapturedOutput output) {
		runner().run((context) -> {
			McpStdioServer server = context.getBean(McpStdioServers.class).get("hostile");
			call(server, "s-1", "say", "{\"text\":\"" + ESCAPES + " " + KEY + "\"}");
			call(server, "s-2", "say", "{\"text\":\"" + "y".repeat(20_000) + "\"}");
			String shown = "\\u001B[2J\\u001B[31mFAKE ERROR\\u000DINFO forged ******";
			// stderr is read by a poller: the tail the endpoint shows, and exceptions
			// quote,
			// gets the lines a little after stdout's
			Await.within(Duration.ofSeconds(20))
				.until("the stderr lines read", () -> server.process().stderrTail().size() >= 2);
			List<String> tail = server.process().stderrTail();
			assertThat(tail).contains(shown);
			Await.within(Duration.ofSeconds(20))
				.until("the stderr line logged", () -> output.getOut().contains(" : " + shown)
						&& output.getOut().contains("that is not JSON-RPC; skipped it: \\u001B[2J"));
			assertThat(tail).allSatisfy((line) -> assertThat(line).hasSizeLessThanOrEqualTo(8 * 1024 + 20));
		});
		assertThat(output.getOut()).doesNotContain("\u001b").doesNotContain(KEY);
	}

	private ApplicationContextRunner runner() {
		List<String> command = Fixtures.java(TestMcpServer.class.getName(), "--leak-env", "UPSTREAM_API_KEY");
		List<String> properties = new ArrayList<>(List.of("mcp.stdio.servers.hostile.command=" + command.get(0),
				"mcp.stdio.servers.hostile.env." + Fixtures.MARKER + "=" + this.fixtures.id(),
				"mcp.stdio.servers.hostile.env.UPSTREAM_API_KEY=" + KEY,
				"mcp.stdio.servers.hostile.env.DB_PASSWORD=73109182"));
		for (int i = 1; i < command.size(); i++) {
			properties.add("mcp.stdio.servers.hostile.args[" + (i - 1) + "]=" + command.get(i));
		}
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(McpStdioAutoConfiguration.class,
					ObservationAutoConfiguration.class, McpStdioObservationAutoConfiguration.class))
			.withUserConfiguration(RequestTracingTests.Spans.class)
			.withPropertyValues(properties.toArray(String[]::new));
	}

	private static void call(McpStdioServer server, String id, String tool, String arguments) throws Exception {
		server
			.request(id,
					"{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"method\":\"tools/call\",\"params\":{\"name\":\""
							+ tool + "\",\"arguments\":" + arguments + "}}")
			.get(30, TimeUnit.SECONDS);
	}

	private static MutableSpan span(List<MutableSpan> spans, String id) {
		return spans.stream()
			.filter((span) -> id.equals(span.tag("jsonrpc.request.id")))
			.findFirst()
			.orElseThrow(() -> new AssertionError("No span of request " + id + " in " + spans));
	}

}

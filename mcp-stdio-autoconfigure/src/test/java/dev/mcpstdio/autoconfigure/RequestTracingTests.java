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

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import brave.Span.Kind;
import brave.Tracing;
import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.ThreadLocalCurrentTraceContext;
import brave.sampler.Sampler;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.brave.bridge.BraveCurrentTraceContext;
import io.micrometer.tracing.brave.bridge.BravePropagator;
import io.micrometer.tracing.brave.bridge.BraveTracer;
import io.micrometer.tracing.brave.bridge.W3CPropagation;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of the request spans with a real tracer (Brave, W3C trace context, spans kept in
 * memory) in a real context: each request is a client span named {@code {mcp.method.name}
 * {target}} with the conventions' attributes, a child of the observation it was sent in,
 * and the fixture server receives its {@code traceparent} in the request's
 * {@code params._meta}, merged with what was there.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class RequestTracingTests {

	private final Fixtures fixtures;

	@TempDir
	Path directory;

	RequestTracingTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void eachRequestIsAClientSpanWhoseTraceparentTheServerReceives() throws IOException {
		Path received = this.directory.resolve("received.jsonl");
		runner(received).run((context) -> {
			McpStdioServer server = context.getBean(McpStdioServers.class).get("traced");
			ObservationRegistry registry = context.getBean(ObservationRegistry.class);
			Observation.createNotStarted("parent", registry).observeChecked(() -> {
				server.request("tr-1", toolCall("tr-1", "echo", "")).get(10, TimeUnit.SECONDS);
				server.request("tr-2", toolCall("tr-2", "fail", "\"_meta\":{\"progressToken\":\"p-2\"},"))
					.get(10, TimeUnit.SECONDS);
				server
					.request("tr-3",
							"{\"jsonrpc\":\"2.0\",\"id\":\"tr-3\",\"method\":\"prompts/get\","
									+ "\"params\":{\"name\":\"review\"}}")
					.get(10, TimeUnit.SECONDS);
				server.request("tr-4", "{\"jsonrpc\":\"2.0\",\"id\":\"tr-4\",\"method\":\"tools/list\"}")
					.get(10, TimeUnit.SECONDS);
			});
			List<MutableSpan> spans = context.getBean(Spans.class).spans;
			// a request's span ends right after its caller got the response
			awaitSpans(spans, "parent", "tools/call echo", "tools/call fail", "prompts/get review",
					"tools/list traced");
			MutableSpan parent = span(spans, "parent");

			MutableSpan call = span(spans, "tools/call echo");
			assertThat(call.kind()).isEqualTo(Kind.CLIENT);
			assertThat(call.traceId()).isEqualTo(parent.traceId()).hasSize(32);
			assertThat(call.parentId()).isEqualTo(parent.id());
			assertThat(call.remoteServiceName()).isEqualTo("traced");
			assertThat(call.tags()).containsEntry("mcp.method.name", "tools/call")
				.containsEntry("gen_ai.tool.name", "echo")
				.containsEntry("network.transport", "pipe")
				.containsEntry("server", "traced")
				.containsEntry("jsonrpc.request.id", "tr-1")
				.doesNotContainKey("error.type");
			assertThat(call.error()).isNull();
			JsonNode meta = receivedMeta(received, "tr-1");
			assertThat(meta.get("traceparent").asString()).isEqualTo("00-" + call.traceId() + "-" + call.id() + "-01");

			MutableSpan failed = span(spans, "tools/call fail");
			assertThat(failed.tags()).containsEntry("error.type", "tool_error");
			assertThat(failed.error()).hasMessage("Tool 'fail' answered with isError: true");
			JsonNode merged = receivedMeta(received, "tr-2");
			assertThat(merged.get("progressToken").asString()).isEqualTo("p-2");
			assertThat(merged.get("traceparent").asString())
				.isEqualTo("00-" + failed.traceId() + "-" + failed.id() + "-01");

			assertThat(span(spans, "prompts/get review").tags()).containsEntry("gen_ai.prompt.name", "review");
			assertThat(span(spans, "tools/list traced").tags()).containsEntry("mcp.method.name", "tools/list")
				.doesNotContainKey("gen_ai.tool.name");
			assertThat(receivedMeta(received, "tr-4").get("traceparent").asString())
				.startsWith("00-" + parent.traceId());
		});
	}

	@Test
	void withoutATracerTheRequestIsSentAsItWas() throws IOException {
		Path received = this.directory.resolve("untraced.jsonl");
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(McpStdioAutoConfiguration.class,
					ObservationAutoConfiguration.class, McpStdioObservationAutoConfiguration.class))
			.withPropertyValues(serverProperties(received))
			.run((context) -> {
				McpStdioServer server = context.getBean(McpStdioServers.class).get("traced");
				String request = toolCall("un-1", "echo", "");
				server.request("un-1", request).get(10, TimeUnit.SECONDS);
				assertThat(Files.readAllLines(received)).contains(request);
			});
	}

	private ApplicationContextRunner runner(Path received) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(McpStdioAutoConfiguration.class,
					ObservationAutoConfiguration.class, McpStdioObservationAutoConfiguration.class))
			.withUserConfiguration(Spans.class)
			.withPropertyValues(serverProperties(received));
	}

	private String[] serverProperties(Path received) {
		return new String[] { "mcp.stdio.servers.traced.command=sh",
				"mcp.stdio.servers.traced.args=" + Fixtures.script("tools.sh"),
				"mcp.stdio.servers.traced.env." + Fixtures.MARKER + "=" + this.fixtures.id(),
				"mcp.stdio.servers.traced.env.RECEIVED=" + received };
	}

	private static void awaitSpans(List<MutableSpan> spans, String... names) {
		Await.within(Duration.ofSeconds(10))
			.holds(() -> spans.stream().map(MutableSpan::name).toList().containsAll(List.of(names)));
		assertThat(spans).extracting(MutableSpan::name).contains(names);
	}

	private static MutableSpan span(List<MutableSpan> spans, String name) {
		return spans.stream()
			.filter((span) -> name.equals(span.name()))
			.findFirst()
			.orElseThrow(() -> new AssertionError("No span '" + name + "' in " + spans));
	}

	private static JsonNode receivedMeta(Path received, String id) throws IOException {
		for (String line : Files.readAllLines(received)) {
			JsonNode request = JsonMapper.shared().readTree(line);
			if (id.equals(request.path("id").asString())) {
				return request.get("params").get("_meta");
			}
		}
		throw new AssertionError("The server received no request " + id + ": " + Files.readAllLines(received));
	}

	private static String toolCall(String id, String tool, String paramsPrefix) {
		return "{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"method\":\"tools/call\",\"params\":{" + paramsPrefix
				+ "\"name\":\"" + tool + "\",\"arguments\":{}}}";
	}

	/** Brave as Boot sets it up for W3C propagation, keeping the spans in memory. */
	@Configuration(proxyBeanMethods = false)
	static class Spans {

		final List<MutableSpan> spans = new CopyOnWriteArrayList<>();

		@Bean(destroyMethod = "close")
		Tracing braveTracing() {
			return Tracing.newBuilder()
				.localServiceName("mcp-stdio-test")
				.traceId128Bit(true)
				.currentTraceContext(ThreadLocalCurrentTraceContext.create())
				.propagationFactory(new W3CPropagation())
				.sampler(Sampler.ALWAYS_SAMPLE)
				.addSpanHandler(new SpanHandler() {

					@Override
					public boolean end(brave.propagation.TraceContext context, MutableSpan span, Cause cause) {
						Spans.this.spans.add(span);
						return true;
					}

				})
				.build();
		}

		@Bean
		ObservationHandler<Observation.Context> tracingObservationHandler(Tracing tracing) {
			BraveTracer tracer = new BraveTracer(tracing.tracer(),
					new BraveCurrentTraceContext(tracing.currentTraceContext()));
			// as Boot groups them: the first that supports a context handles it
			return new ObservationHandler.FirstMatchingCompositeObservationHandler(
					new PropagatingSenderTracingObservationHandler<>(tracer, new BravePropagator(tracing)),
					new DefaultTracingObservationHandler(tracer));
		}

	}

}

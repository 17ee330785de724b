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

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.McpServerExitedException;
import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.server.InFlightRequest;
import dev.mcpstdio.core.server.io.JsonRpcLine;
import dev.mcpstdio.core.server.MessageListener;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.RequestObserver;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.test.TestHost;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link RequestObservations} with real server processes: every request is
 * observed, whoever sends it and however it ends (answered, failed, timed out, cancelled,
 * cut short by the exit, never sent).
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class RequestObservationsTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	private final Fixtures fixtures;

	private final List<McpStdioServer> servers = new ArrayList<>();

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	private final BlockingQueue<McpOperationContext> ended = new LinkedBlockingQueue<>();

	private final ObservationRegistry registry = ObservationRegistry.create();

	RequestObservationsTests(Fixtures fixtures) {
		this.fixtures = fixtures;
		// handlers learn of a stop in the reverse order of their registration: the timer
		// is recorded before the test learns that the observation ended
		this.registry.observationConfig().observationHandler(new ObservationHandler<McpOperationContext>() {

			@Override
			public void onStop(McpOperationContext context) {
				RequestObservationsTests.this.ended.add(context);
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return context instanceof McpOperationContext;
			}

		});
		// as Boot groups the meter handlers: the first that supports a context records it
		this.registry.observationConfig()
			.observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
					new McpOperationMeterHandler(this.meters), new DefaultMeterObservationHandler(this.meters)));
	}

	@AfterEach
	void cleanUp() {
		this.meters.close();
		Fixtures.cleanUp(this.servers, McpStdioServer::stopServer);
	}

	@Test
	void aToolCallThroughRequestIsObservedWithTheKeysOfTheConventions() throws Exception {
		McpStdioServer server = observed("obs-tools");
		server.request("c-1", toolCall("c-1", "echo")).get(10, TimeUnit.SECONDS);
		McpOperationContext context = nextEnded();
		assertThat(context.getMethod()).isEqualTo("tools/call");
		assertThat(context.getToolName()).isEqualTo("echo");
		assertThat(context.getErrorType()).isNull();
		assertThat(context.getError()).isNull();
		Timer timer = this.meters.get("mcp.client.operation.duration")
			.tags("server", "obs-tools", "mcp.method.name", "tools/call", "gen_ai.tool.name", "echo",
					"network.transport", "pipe")
			.timer();
		assertThat(timer.count()).isEqualTo(1);
		// the convention's key values, nothing else: no error tag, no long task timer
		assertThat(timer.getId().getTags()).extracting(io.micrometer.core.instrument.Tag::getKey)
			.containsExactlyInAnyOrder("server", "mcp.method.name", "gen_ai.tool.name", "network.transport");
		assertThat(this.meters.getMeters()).extracting((meter) -> meter.getId().getName())
			.containsOnly("mcp.client.operation.duration");
		assertThat(timer.totalTime(TimeUnit.NANOSECONDS)).isPositive();
	}

	@Test
	void requestsSentWithSendAreEndedByTheirResponsesAsTheSessionGetsThem() throws Exception {
		McpStdioServer server = observed("obs-send");
		BlockingQueue<String> delivered = new LinkedBlockingQueue<>();
		server.clientConnection().attach((message) -> delivered.add(message.text()));
		server.send(toolCall("s-1", "result-first"), "s-1");
		server.send("{\"jsonrpc\":\"2.0\",\"id\":\"s-2\",\"method\":\"prompts/get\",\"params\":{\"name\":\"review\"}}",
				"s-2");
		server.send("{\"jsonrpc\":\"2.0\",\"id\":\"s-3\",\"method\":\"broken\"}", "s-3");
		server.send(toolCall("s-4", "fail"), "s-4");
		List<McpOperationContext> contexts = List.of(nextEnded(), nextEnded(), nextEnded(), nextEnded());
		assertThat(contexts).extracting(McpOperationContext::getRequestId)
			.containsExactlyInAnyOrder("s-1", "s-2", "s-3", "s-4");
		for (McpOperationContext context : contexts) {
			switch (context.getRequestId()) {
				case "s-1" -> {
					assertThat(context.getToolName()).isEqualTo("result-first");
					assertThat(context.getErrorType()).isNull();
				}
				case "s-2" -> {
					assertThat(context.getPromptName()).isEqualTo("review");
					assertThat(context.getErrorType()).isNull();
				}
				case "s-3" -> {
					assertThat(context.getMethod()).isEqualTo("broken");
					assertThat(context.getErrorType()).isEqualTo("-32601");
					assertThat(context.getError()).hasMessage("Method not found: broken");
				}
				default -> {
					assertThat(context.getToolName()).isEqualTo("fail");
					assertThat(context.getErrorType()).isEqualTo("tool_error");
					assertThat(context.getError()).hasMessage("Tool 'fail' answered with isError: true");
				}
			}
		}
		// the session got every response, unchanged
		for (int i = 0; i < 4; i++) {
			assertThat(delivered.poll(10, TimeUnit.SECONDS)).as("response %d", i).isNotNull();
		}
		assertThat(this.meters.get("mcp.client.operation.duration")
			.tags("mcp.method.name", "tools/call", "gen_ai.tool.name", "fail", "error.type", "tool_error")
			.timer()
			.count()).isEqualTo(1);
		assertThat(this.meters.get("mcp.client.operation.duration")
			.tags("mcp.method.name", "broken", "error.type", "-32601")
			.timer()
			.count()).isEqualTo(1);
	}

	@Test
	void aRequestNeverAnsweredIsEndedByTheClientsTimeout() throws Exception {
		McpStdioServer server = observed("obs-timeout");
		server.clientConnection().setClientRequestTimeout(Duration.ofMillis(300));
		server.clientConnection().attach(MessageListener.NONE);
		long begin = System.nanoTime();
		server.send("{\"jsonrpc\":\"2.0\",\"id\":\"t-1\",\"method\":\"hang\"}", "t-1");
		CompletableFuture<String> direct = server.request("t-2",
				"{\"jsonrpc\":\"2.0\",\"id\":\"t-2\",\"method\":\"hang\"}");
		List<McpOperationContext> contexts = List.of(nextEnded(), nextEnded());
		Duration took = Duration.ofNanos(System.nanoTime() - begin);
		assertThat(contexts).extracting(McpOperationContext::getErrorType).containsOnly("timeout");
		assertThat(contexts).extracting(McpOperationContext::getRequestId).containsExactlyInAnyOrder("t-1", "t-2");
		assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(300)).isLessThan(WAIT);
		assertThat(contexts.get(0).getError()).hasMessageContaining("request timeout of 300ms");
		assertThat(direct).isNotDone();
		direct.cancel(false);
		// ended once: the cancellation after the timeout records nothing more
		assertThat(this.ended.poll(300, TimeUnit.MILLISECONDS)).isNull();
		assertThat(this.meters.get("mcp.client.operation.duration").tags("error.type", "timeout").timer().count())
			.isEqualTo(2);
	}

	@Test
	void requestsInFlightWhenTheProcessEndsAreEndedByTheExit() throws Exception {
		McpStdioServer server = observed("obs-exit");
		server.clientConnection().attach(MessageListener.NONE);
		server.send("{\"jsonrpc\":\"2.0\",\"id\":\"x-1\",\"method\":\"hang\"}", "x-1");
		CompletableFuture<String> direct = server.request("x-2",
				"{\"jsonrpc\":\"2.0\",\"id\":\"x-2\",\"method\":\"hang\"}");
		CompletableFuture<String> crash = server.request("x-3",
				"{\"jsonrpc\":\"2.0\",\"id\":\"x-3\",\"method\":\"crash\"}");
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> crash.get(10, TimeUnit.SECONDS))
			.withCauseInstanceOf(McpServerExitedException.class);
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> direct.get(10, TimeUnit.SECONDS));
		List<McpOperationContext> contexts = List.of(nextEnded(), nextEnded(), nextEnded());
		assertThat(contexts).extracting(McpOperationContext::getRequestId)
			.containsExactlyInAnyOrder("x-1", "x-2", "x-3");
		assertThat(contexts).extracting(McpOperationContext::getErrorType)
			.containsOnly("dev.mcpstdio.McpServerExitedException");
		assertThat(contexts)
			.allSatisfy((context) -> assertThat(context.getError()).isInstanceOf(McpServerExitedException.class)
				.hasMessageContaining("exit code 5"));
	}

	@Test
	void aCancelledRequestAndASendThatFailedAreObserved() throws Exception {
		McpStdioServer server = observed("obs-cancel");
		server.clientConnection().attach(MessageListener.NONE);
		server.send("{\"jsonrpc\":\"2.0\",\"id\":\"k-1\",\"method\":\"hang\"}", "k-1");
		server.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"k-1\"}}",
				null);
		McpOperationContext cancelled = nextEnded();
		assertThat(cancelled.getRequestId()).isEqualTo("k-1");
		assertThat(cancelled.getErrorType()).isEqualTo("cancelled");
		CompletableFuture<String> direct = server.request("k-2",
				"{\"jsonrpc\":\"2.0\",\"id\":\"k-2\",\"method\":\"hang\"}");
		direct.cancel(false);
		assertThat(nextEnded().getErrorType()).isEqualTo("cancelled");

		server.stopServer();
		assertThatExceptionOfType(McpServerNotRunningException.class)
			.isThrownBy(() -> server.send("{\"jsonrpc\":\"2.0\",\"id\":\"k-3\",\"method\":\"ping\"}", "k-3"));
		McpOperationContext unsent = nextEnded();
		assertThat(unsent.getRequestId()).isEqualTo("k-3");
		assertThat(unsent.getErrorType()).isEqualTo("dev.mcpstdio.McpServerNotRunningException");
		assertThat(server.request("k-4", "{\"jsonrpc\":\"2.0\",\"id\":\"k-4\",\"method\":\"ping\"}")).isDone();
		assertThat(nextEnded().getErrorType()).isEqualTo("dev.mcpstdio.McpServerNotRunningException");
	}

	@Test
	void nothingIsObservedWithoutAHandlerOrOnceDetached() throws Exception {
		McpStdioServer server = server("obs-noop");
		RequestObservations observations = new RequestObservations(server, ObservationRegistry.NOOP, null);
		observations.attach();
		server.startServer();
		assertThat(server.request("n-1", toolCall("n-1", "echo")).get(10, TimeUnit.SECONDS)).contains("called echo");
		// the registry observes nothing: no request is taken under observation
		InFlightRequest unobserved = InFlightRequest.of("n-x", JsonRpcLine.of(toolCall("n-x", "echo")), null);
		observations.sending(unobserved);
		assertThat(unobserved.observer()).isNull();

		RequestObservations real = new RequestObservations(server, this.registry, null);
		real.attach();
		server.clientConnection().observeRequests(RequestObserver.NONE);
		server.request("n-2", toolCall("n-2", "echo")).get(10, TimeUnit.SECONDS);
		assertThat(this.ended.poll(200, TimeUnit.MILLISECONDS)).isNull();
		assertThat(this.meters.find("mcp.client.operation.duration").timers()).isEmpty();
	}

	@Test
	void aSecondRequestUnderAPendingIdIsNotObservedAndTheFirstStays() throws Exception {
		McpStdioServer server = observed("obs-dup");
		server.clientConnection().attach(MessageListener.NONE);
		server.send("{\"jsonrpc\":\"2.0\",\"id\":\"d-1\",\"method\":\"hang\"}", "d-1");
		org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
			.isThrownBy(() -> server.send("{\"jsonrpc\":\"2.0\",\"id\":\"d-1\",\"method\":\"ping\"}", "d-1"));
		assertThat(this.ended.poll(200, TimeUnit.MILLISECONDS)).isNull();
		server.stopServer();
		McpOperationContext first = nextEnded();
		assertThat(first.getMethod()).isEqualTo("hang");
		assertThat(first.getErrorType()).isEqualTo("dev.mcpstdio.McpServerExitedException");
	}

	private McpStdioServer observed(String name) {
		McpStdioServer server = server(name);
		new RequestObservations(server, this.registry, null).attach();
		server.clientConnection().setSelfInitialize(false);
		server.startServer();
		return server;
	}

	private McpStdioServer server(String name) {
		McpStdioServer server = new McpStdioServer(SpecDefaults.definition(
				this.fixtures.spec(name, "tools.sh").toBuilder().startupTimeout(Duration.ofSeconds(20)).build()),
				TestHost.shared());
		this.servers.add(server);
		return server;
	}

	private McpOperationContext nextEnded() throws InterruptedException {
		McpOperationContext context = this.ended.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
		assertThat(context).as("an observation that ended within %s", WAIT).isNotNull();
		return context;
	}

	static String toolCall(String id, String tool) {
		return "{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
				+ "\",\"arguments\":{\"text\":\"hi\"}}}";
	}

}

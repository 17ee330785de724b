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

package dev.mcpstdio.ai;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.test.Fixtures;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import tools.jackson.databind.json.JsonMapper;

/**
 * Measures the time from a server's death to the caller's error, through mcp-stdio's
 * transport (built by the auto-configuration) and through the SDK's
 * {@link StdioClientTransport}, on the same server (the test suite's
 * {@link TestMcpServer}) with the same 20 s request timeout (Spring AI's default). Run by
 * {@code dev.mcpstdio.bench.LifecycleBenchmark}; the figures are in docs/spring-ai.md.
 *
 * @author mcp-stdio authors
 */
public final class DeathToErrorFigures {

	private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(20);

	private final Fixtures fixtures = new Fixtures();

	private DeathToErrorFigures() {
	}

	/**
	 * Measure, and print the figures.
	 * @param runs runs through mcp-stdio
	 * @param sdkRuns runs through the SDK's transport (each waits for its 20 s timeout)
	 * @return the figures, one line each
	 */
	public static List<String> measure(int runs, int sdkRuns) {
		DeathToErrorFigures figures = new DeathToErrorFigures();
		try {
			return figures.run(runs, sdkRuns);
		}
		finally {
			figures.fixtures.assertNoneAlive(Duration.ofSeconds(10));
		}
	}

	private List<String> run(int runs, int sdkRuns) {
		List<Long> oursInFlight = new ArrayList<>();
		List<Long> oursNext = new ArrayList<>();
		AiTestSupport.runner()
			.withPropertyValues(AiTestSupport.properties(AiTestSupport.testServer("demo", this.fixtures.id()),
					List.of("mcp.stdio.servers.demo.restart.policy=always",
							"mcp.stdio.servers.demo.restart.initial-backoff=100ms",
							"mcp.stdio.servers.demo.restart.max-backoff=200ms",
							"mcp.stdio.servers.demo.restart.max-restarts=100",
							"spring.ai.mcp.client.request-timeout=" + REQUEST_TIMEOUT.toSeconds() + "s")))
			.run((context) -> {
				McpSyncClient client = AiTestSupport.syncClient(context);
				for (int i = 0; i < runs; i++) {
					oursInFlight.add(inFlight(client));
					oursNext.add(nextCall(client));
				}
			});
		List<Long> sdkInFlight = new ArrayList<>();
		List<Long> sdkNext = new ArrayList<>();
		for (int i = 0; i < sdkRuns; i++) {
			sdkInFlight.add(withSdkClient(this::inFlight));
			sdkNext.add(withSdkClient(this::nextCall));
		}
		if (oursInFlight.size() != runs) {
			throw new IllegalStateException("the context did not run: " + oursInFlight.size() + " runs of " + runs);
		}
		return List.of("death-to-error (ms), request timeout " + REQUEST_TIMEOUT.toSeconds() + " s",
				"mcp-stdio   in-flight request: " + summary(oursInFlight),
				"mcp-stdio   next call:         " + summary(oursNext),
				"SDK stdio   in-flight request: " + summary(sdkInFlight),
				"SDK stdio   next call:         " + summary(sdkNext));
	}

	private long withSdkClient(java.util.function.ToLongFunction<McpSyncClient> scenario) {
		ServerParameters parameters = ServerParameters.builder(AiTestSupport.java())
			.args("-cp", System.getProperty("java.class.path"), TestMcpServer.class.getName())
			.env(Map.of(Fixtures.MARKER, this.fixtures.id()))
			.build();
		McpSyncClient client = McpClient
			.sync(new StdioClientTransport(parameters, new JacksonMcpJsonMapper(JsonMapper.shared())))
			.requestTimeout(REQUEST_TIMEOUT)
			.build();
		try {
			client.initialize();
			return scenario.applyAsLong(client);
		}
		finally {
			client.close();
		}
	}

	/** Time from SIGKILL to the error of a request in flight. */
	private long inFlight(McpSyncClient client) {
		long pid = pid(client);
		CompletableFuture<Object> slow = CompletableFuture.supplyAsync(
				() -> client.callTool(CallToolRequest.builder("slow").arguments(Map.of("millis", 60000)).build()));
		Fixtures.sleep(300);
		long begin = System.nanoTime();
		ProcessHandle.of(pid).orElseThrow().destroyForcibly();
		return untilError(begin, slow::get);
	}

	/** Time of the first call after the death was observed by the OS. */
	private long nextCall(McpSyncClient client) {
		long pid = pid(client);
		ProcessHandle handle = ProcessHandle.of(pid).orElseThrow();
		handle.destroyForcibly();
		handle.onExit().orTimeout(5, TimeUnit.SECONDS).join();
		long begin = System.nanoTime();
		return untilError(begin, () -> client.callTool(CallToolRequest.builder("echo").build()));
	}

	private long pid(McpSyncClient client) {
		// a restarted server may still be starting: retry, bounded
		long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
		while (true) {
			try {
				return Long.parseLong(AiTestSupport.text(client.callTool(CallToolRequest.builder("pid").build())));
			}
			catch (RuntimeException ex) {
				if (System.nanoTime() > deadline) {
					throw ex;
				}
				Fixtures.sleep(100);
			}
		}
	}

	private static long untilError(long begin, Callable call) {
		try {
			call.call();
		}
		catch (Exception ex) {
			return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin);
		}
		throw new AssertionError("the call succeeded although the server was killed");
	}

	private static String summary(List<Long> millis) {
		List<Long> sorted = new ArrayList<>(millis);
		Collections.sort(sorted);
		return "median " + sorted.get(sorted.size() / 2) + ", min " + sorted.get(0) + ", max "
				+ sorted.get(sorted.size() - 1) + " (n=" + sorted.size() + ")";
	}

	@FunctionalInterface
	interface Callable {

		Object call() throws InterruptedException, ExecutionException;

	}

}

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

package dev.mcpstdio.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import dev.mcpstdio.ai.TestMcpServer;
import dev.mcpstdio.test.Fixtures;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Time from a server's death to the caller's error, through mcp-stdio's and the SDK's
 * transport.
 *
 * @author mcp-stdio authors
 */
final class DeathToErrorFigures {

	/** Spring AI's default request timeout, set on both sides. */
	private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(20);

	private final Fixtures fixtures = new Fixtures();

	private DeathToErrorFigures() {
	}

	/**
	 * Measure, on the same server (the test suite's {@link TestMcpServer}): through
	 * Spring AI's client over mcp-stdio's transport, as the auto-configuration builds
	 * them, and through an SDK client over its {@link StdioClientTransport}.
	 * @param runs runs through mcp-stdio
	 * @param sdkRuns runs through the SDK's transport (each waits for its 20 s timeout)
	 * @return the figures, one line each
	 */
	static List<String> measure(int runs, int sdkRuns) {
		DeathToErrorFigures figures = new DeathToErrorFigures();
		try {
			return figures.run(runs, sdkRuns);
		}
		finally {
			figures.fixtures.assertNoneAlive(Duration.ofSeconds(10));
		}
	}

	private List<String> run(int runs, int sdkRuns) {
		List<Outcome> oursInFlight = new ArrayList<>();
		List<Outcome> oursNext = new ArrayList<>();
		try (ConfigurableApplicationContext context = application()) {
			@SuppressWarnings("unchecked")
			List<McpSyncClient> clients = context.getBean("mcpSyncClients", List.class);
			McpSyncClient client = clients.get(0);
			for (int i = 0; i < runs; i++) {
				oursInFlight.add(inFlight(client));
				oursNext.add(nextCall(client));
			}
		}
		List<Outcome> sdkInFlight = new ArrayList<>();
		List<Outcome> sdkNext = new ArrayList<>();
		for (int i = 0; i < sdkRuns; i++) {
			sdkInFlight.add(withSdkClient(this::inFlight));
			sdkNext.add(withSdkClient(this::nextCall));
		}
		return List.of("death-to-error (ms), request timeout " + REQUEST_TIMEOUT.toSeconds() + " s",
				"mcp-stdio   in-flight request: " + summary(oursInFlight),
				"mcp-stdio   next call:         " + summary(oursNext),
				"SDK stdio   in-flight request: " + summary(sdkInFlight),
				"SDK stdio   next call:         " + summary(sdkNext));
	}

	/**
	 * One server {@code demo}, restarted at once after each death, and Spring AI's client
	 * for it.
	 */
	private ConfigurableApplicationContext application() {
		Map<String, Object> properties = new LinkedHashMap<>();
		List<String> command = Fixtures.java(TestMcpServer.class.getName());
		String prefix = "mcp.stdio.servers.demo.";
		properties.put(prefix + "command", command.get(0));
		for (int i = 1; i < command.size(); i++) {
			properties.put(prefix + "args[" + (i - 1) + "]", command.get(i));
		}
		properties.put(prefix + "env." + Fixtures.MARKER, this.fixtures.id());
		properties.put(prefix + "shutdown.drain-timeout", "1s");
		properties.put(prefix + "shutdown.stdin-close-timeout", "1s");
		properties.put(prefix + "shutdown.terminate-timeout", "1s");
		properties.put(prefix + "restart.policy", "always");
		properties.put(prefix + "restart.initial-backoff", "100ms");
		properties.put(prefix + "restart.max-backoff", "200ms");
		properties.put(prefix + "restart.max-restarts", "100");
		properties.put("spring.ai.mcp.client.request-timeout", REQUEST_TIMEOUT.toSeconds() + "s");
		properties.put("spring.main.banner-mode", "off");
		properties.put("spring.main.log-startup-info", "false");
		SpringApplication application = new SpringApplication(Application.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.setDefaultProperties(properties);
		return application.run();
	}

	private Outcome withSdkClient(Function<McpSyncClient, Outcome> scenario) {
		List<String> command = Fixtures.java(TestMcpServer.class.getName());
		ServerParameters parameters = ServerParameters.builder(command.get(0))
			.args(command.subList(1, command.size()))
			.env(Map.of(Fixtures.MARKER, this.fixtures.id()))
			.build();
		McpSyncClient client = McpClient
			.sync(new StdioClientTransport(parameters, new JacksonMcpJsonMapper(JsonMapper.shared())))
			.requestTimeout(REQUEST_TIMEOUT)
			.build();
		try {
			client.initialize();
			return scenario.apply(client);
		}
		finally {
			client.close();
		}
	}

	/** Time from SIGKILL to the error of a request in flight. */
	private Outcome inFlight(McpSyncClient client) {
		long pid = pid(client);
		CompletableFuture<Object> slow = CompletableFuture.supplyAsync(
				() -> client.callTool(CallToolRequest.builder("slow").arguments(Map.of("millis", 60000)).build()));
		Fixtures.sleep(300);
		long begin = System.nanoTime();
		ProcessHandle.of(pid).orElseThrow().destroyForcibly();
		return outcome(begin, slow::get);
	}

	/**
	 * Time of the first call after the death was observed by the OS. Through mcp-stdio,
	 * with {@code restart.policy: always}, a call that comes once mcp-stdio has seen the
	 * exit waits for the restarted process, which answers it.
	 */
	private Outcome nextCall(McpSyncClient client) {
		ProcessHandle handle = ProcessHandle.of(pid(client)).orElseThrow();
		handle.destroyForcibly();
		handle.onExit().orTimeout(5, TimeUnit.SECONDS).join();
		long begin = System.nanoTime();
		return outcome(begin, () -> client.callTool(CallToolRequest.builder("echo").build()));
	}

	private long pid(McpSyncClient client) {
		// a restarted server may still be starting: retry, bounded
		long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
		while (true) {
			try {
				return Long
					.parseLong(((TextContent) client.callTool(CallToolRequest.builder("pid").build()).content().get(0))
						.text());
			}
			catch (RuntimeException ex) {
				if (System.nanoTime() > deadline) {
					throw ex;
				}
				Fixtures.sleep(100);
			}
		}
	}

	private static Outcome outcome(long begin, Call call) {
		boolean failed = false;
		try {
			call.call();
		}
		catch (Exception ex) {
			failed = true;
		}
		return new Outcome(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin), failed);
	}

	private static String summary(List<Outcome> outcomes) {
		List<Long> sorted = new ArrayList<>(outcomes.stream().map(Outcome::millis).toList());
		Collections.sort(sorted);
		long answered = outcomes.stream().filter((outcome) -> !outcome.failed()).count();
		return "median " + sorted.get(sorted.size() / 2) + ", min " + sorted.get(0) + ", max "
				+ sorted.get(sorted.size() - 1) + " (n=" + sorted.size()
				+ ((answered > 0) ? ", of which " + answered + " answered instead of failing" : "") + ")";
	}

	/** How long a call took until it failed, or until it was answered. */
	private record Outcome(long millis, boolean failed) {

	}

	@FunctionalInterface
	private interface Call {

		Object call() throws InterruptedException, ExecutionException;

	}

	/** An application with every auto-configuration on the bench's class path. */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

	}

}

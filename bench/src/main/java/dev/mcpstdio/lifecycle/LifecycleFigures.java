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

package dev.mcpstdio.lifecycle;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.mcpstdio.lifecycle.forked.ForkedMcpApplication;
import dev.mcpstdio.test.Fixtures;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * Figures of a whole application's servers, with the test suite's fixture servers: how
 * long three slow servers take to start together, how long five servers take to stop
 * alone and together, and how long a JVM takes to end after SIGTERM. The tests of the
 * same behaviour ({@code McpStdioServerLifecycleTests}) assert bounds and print nothing.
 * Run by {@code dev.mcpstdio.bench.LifecycleBenchmark}; the figures are in
 * docs/configuration.md.
 *
 * @author mcp-stdio authors
 */
public final class LifecycleFigures {

	private LifecycleFigures() {
	}

	/**
	 * Start three servers that each take 1s before they read {@code initialize}.
	 * @return the figures
	 */
	public static List<String> start() {
		Fixtures fixtures = new Fixtures();
		Map<String, Object> properties = bounds();
		for (String name : List.of("slow-1", "slow-2", "slow-3")) {
			LifecycleApplications.server(properties, fixtures, name, "slow-init.sh");
		}
		try {
			LifecycleApplications.run(properties, LifecycleApplications.MeasuresServerStart.class).close();
			long millis = (LifecycleApplications.phaseEnd.get() - LifecycleApplications.phaseStart.get()) / 1_000_000;
			return List.of("start: three servers that each take 1s before they answer initialize, all initialized in "
					+ millis + " ms");
		}
		finally {
			fixtures.assertNoneAlive(Duration.ofSeconds(10));
		}
	}

	/**
	 * Stop five servers, each in a context of its own, then all five in one context:
	 * drain 500ms, stdin-close 1s (2s for the one that ignores EOF), terminate 1s.
	 * @return the figures
	 */
	public static List<String> stop() {
		Map<String, String> servers = LifecycleApplications.fiveServers();
		List<String> lines = new ArrayList<>();
		long sum = 0;
		long slowest = 0;
		Fixtures fixtures = new Fixtures();
		try {
			for (Map.Entry<String, String> server : servers.entrySet()) {
				Map<String, Object> properties = bounds();
				fiveServersServer(properties, fixtures, server.getKey(), server.getValue());
				ConfigurableApplicationContext context = LifecycleApplications.run(properties);
				McpStdioServer bean = context.getBean(McpStdioServers.class).get(server.getKey());
				long begin = System.nanoTime();
				context.close();
				long millis = millisSince(begin);
				sum += millis;
				slowest = Math.max(slowest, millis);
				lines.add("stop alone: " + server.getKey() + " " + millis + " ms, " + bean.lastExit().cause());
				fixtures.assertNoneAlive(Duration.ofSeconds(5));
			}
			Map<String, Object> properties = bounds();
			servers.forEach((name, script) -> fiveServersServer(properties, fixtures, name, script));
			ConfigurableApplicationContext context = LifecycleApplications.run(properties);
			long begin = System.nanoTime();
			context.close();
			long together = millisSince(begin);
			lines.add("stop: sum of the five alone " + sum + " ms, slowest alone " + slowest
					+ " ms, all five in one context " + together + " ms");
			return lines;
		}
		finally {
			fixtures.assertNoneAlive(Duration.ofSeconds(10));
		}
	}

	/**
	 * SIGTERM to a JVM running three servers, one deaf to SIGTERM: the time until the JVM
	 * ended.
	 * @return the figures
	 * @throws Exception if the JVM could not be run
	 */
	public static List<String> sigterm() throws Exception {
		Fixtures fixtures = new Fixtures();
		List<String> args = new ArrayList<>(List.of("--spring.main.web-application-type=none",
				"--spring.main.keep-alive=true", "--spring.main.banner-mode=off",
				"--spring.ai.mcp.client.enabled=false", "--management.endpoints.enabled-by-default=false"));
		Map<String, Object> properties = bounds();
		LifecycleApplications.server(properties, fixtures, "echo", "echo.sh");
		LifecycleApplications.server(properties, fixtures, "stubborn", "serves-ignores-sigterm.sh");
		LifecycleApplications.server(properties, fixtures, "parent", "with-children.sh");
		properties.forEach((key, value) -> args.add("--" + key + "=" + value));
		try (ForkedJvm jvm = ForkedJvm.start(ForkedMcpApplication.class.getName(), ForkedMcpApplication.READY, args)) {
			jvm.awaitLine(Duration.ofSeconds(90));
			long begin = System.nanoTime();
			jvm.process().toHandle().destroy();
			int exitCode = jvm.awaitExit(Duration.ofSeconds(60));
			long millis = millisSince(begin);
			int left = fixtures.alive().size();
			return List.of("sigterm: a JVM running three servers (one deaf to SIGTERM) ended " + millis
					+ " ms after SIGTERM, exit code " + exitCode + ", " + left + " of their processes left");
		}
		finally {
			fixtures.assertNoneAlive(Duration.ofSeconds(10));
		}
	}

	private static void fiveServersServer(Map<String, Object> properties, Fixtures fixtures, String name,
			String script) {
		LifecycleApplications.server(properties, fixtures, name, script);
		if (name.equals("ignores-eof")) {
			// as slow to stop as the SIGTERM-deaf one, by another step
			properties.put("mcp.stdio.servers." + name + ".shutdown.stdin-close-timeout", "2s");
		}
	}

	private static Map<String, Object> bounds() {
		Map<String, Object> properties = LifecycleApplications.shutdownBounds();
		properties.put("logging.level.dev.mcpstdio", "WARN");
		properties.put("spring.main.log-startup-info", "false");
		return properties;
	}

	private static long millisSince(long begin) {
		return (System.nanoTime() - begin) / 1_000_000;
	}

}

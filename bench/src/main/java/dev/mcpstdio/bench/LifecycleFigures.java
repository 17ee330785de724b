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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.mcpstdio.autoconfigure.McpStdioAutoConfiguration;
import dev.mcpstdio.lifecycle.ForkedJvm;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.forked.ForkedMcpApplication;
import dev.mcpstdio.test.Fixtures;

import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Configuration;

/**
 * Start, stop and SIGTERM timings of applications running the test suite's fixture
 * servers.
 *
 * @author mcp-stdio authors
 */
final class LifecycleFigures {

	private LifecycleFigures() {
	}

	/**
	 * Start three servers that each take 1s before they read {@code initialize}: the time
	 * from the lifecycle phase before the servers' to the one after it (the tests of the
	 * same behaviour, {@code McpStdioServerLifecycleTests}, assert bounds and print
	 * nothing).
	 * @return the figures
	 */
	static List<String> start() {
		Fixtures fixtures = new Fixtures();
		Map<String, Object> properties = bounds();
		for (String name : List.of("slow-1", "slow-2", "slow-3")) {
			server(properties, fixtures, name, "slow-init.sh");
		}
		AtomicLong before = new AtomicLong();
		AtomicLong after = new AtomicLong();
		try (ConfigurableApplicationContext context = run(properties, (starting) -> {
			starting.getBeanFactory()
				.registerSingleton("beforeServers", new PhaseMark(McpStdioServer.PHASE - 2, before));
			starting.getBeanFactory().registerSingleton("afterServers", new PhaseMark(McpStdioServer.PHASE + 1, after));
		})) {
			long millis = (after.get() - before.get()) / 1_000_000;
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
	static List<String> stop() {
		Map<String, String> servers = new LinkedHashMap<>();
		servers.put("exits-on-eof", "echo.sh");
		servers.put("ignores-eof", "serves-ignores-eof.sh");
		servers.put("ignores-sigterm", "serves-ignores-sigterm.sh");
		servers.put("has-children", "with-children.sh");
		servers.put("crashed", "instant-exit.sh");
		List<String> lines = new ArrayList<>();
		long sum = 0;
		long slowest = 0;
		Fixtures fixtures = new Fixtures();
		try {
			for (Map.Entry<String, String> server : servers.entrySet()) {
				Map<String, Object> properties = bounds();
				fiveServersServer(properties, fixtures, server.getKey(), server.getValue());
				ConfigurableApplicationContext context = run(properties);
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
			ConfigurableApplicationContext context = run(properties);
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
	static List<String> sigterm() throws Exception {
		Fixtures fixtures = new Fixtures();
		List<String> args = new ArrayList<>(List.of("--spring.main.web-application-type=none",
				"--spring.main.keep-alive=true", "--spring.main.banner-mode=off",
				"--spring.ai.mcp.client.enabled=false", "--management.endpoints.enabled-by-default=false"));
		Map<String, Object> properties = bounds();
		server(properties, fixtures, "echo", "echo.sh");
		server(properties, fixtures, "stubborn", "serves-ignores-sigterm.sh");
		server(properties, fixtures, "parent", "with-children.sh");
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
		server(properties, fixtures, name, script);
		if (name.equals("ignores-eof")) {
			// as slow to stop as the SIGTERM-deaf one, by another step
			properties.put("mcp.stdio.servers." + name + ".shutdown.stdin-close-timeout", "2s");
		}
	}

	/** Short shutdown bounds for every server, as the lifecycle tests have them. */
	private static Map<String, Object> bounds() {
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("mcp.stdio.defaults.shutdown.drain-timeout", "500ms");
		properties.put("mcp.stdio.defaults.shutdown.stdin-close-timeout", "1s");
		properties.put("mcp.stdio.defaults.shutdown.terminate-timeout", "1s");
		properties.put("mcp.stdio.defaults.startup-timeout", "20s");
		properties.put("logging.level.dev.mcpstdio", "WARN");
		properties.put("spring.main.log-startup-info", "false");
		return properties;
	}

	/** Add a server that runs a fixture script with {@code sh}, marked. */
	private static void server(Map<String, Object> properties, Fixtures fixtures, String name, String script) {
		String prefix = "mcp.stdio.servers." + name + ".";
		properties.put(prefix + "command", "sh");
		properties.put(prefix + "args[0]", Fixtures.script(script));
		properties.put(prefix + "env." + Fixtures.MARKER, fixtures.id());
	}

	/** Run an application with mcp-stdio's auto-configuration alone, no web server. */
	@SafeVarargs
	private static ConfigurableApplicationContext run(Map<String, Object> properties,
			ApplicationContextInitializer<ConfigurableApplicationContext>... initializers) {
		SpringApplication application = new SpringApplication(OnlyMcpStdio.class);
		application.addInitializers(initializers);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.setRegisterShutdownHook(false);
		application.setBannerMode(Banner.Mode.OFF);
		application.setDefaultProperties(properties);
		return application.run();
	}

	private static long millisSince(long begin) {
		return (System.nanoTime() - begin) / 1_000_000;
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(McpStdioAutoConfiguration.class)
	static class OnlyMcpStdio {

	}

	/** Notes when its lifecycle phase started, in {@link System#nanoTime()}. */
	private record PhaseMark(int phase, AtomicLong startedAt) implements SmartLifecycle {

		@Override
		public void start() {
			this.startedAt.set(System.nanoTime());
		}

		@Override
		public void stop() {
			this.startedAt.set(0);
		}

		@Override
		public boolean isRunning() {
			return this.startedAt.get() != 0;
		}

		@Override
		public int getPhase() {
			return this.phase;
		}

	}

}

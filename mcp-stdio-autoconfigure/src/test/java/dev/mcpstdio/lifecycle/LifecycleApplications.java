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

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.mcpstdio.autoconfigure.McpStdioAutoConfiguration;
import dev.mcpstdio.test.Fixtures;

import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Real applications with only mcp-stdio's auto-configuration and fixture servers, for the
 * lifecycle tests and the bench module's lifecycle figures.
 *
 * @author mcp-stdio authors
 */
final class LifecycleApplications {

	/** When the phase before the servers' started, in {@link System#nanoTime()}. */
	static final AtomicLong phaseStart = new AtomicLong();

	/** When the phase after the servers' started. */
	static final AtomicLong phaseEnd = new AtomicLong();

	private LifecycleApplications() {
	}

	/**
	 * Return short shutdown bounds for every server: drain 500ms, stdin-close and
	 * terminate 1s; startup-timeout 20s.
	 * @return the properties, to add servers to
	 */
	static Map<String, Object> shutdownBounds() {
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("mcp.stdio.defaults.shutdown.drain-timeout", "500ms");
		properties.put("mcp.stdio.defaults.shutdown.stdin-close-timeout", "1s");
		properties.put("mcp.stdio.defaults.shutdown.terminate-timeout", "1s");
		properties.put("mcp.stdio.defaults.startup-timeout", "20s");
		return properties;
	}

	/**
	 * Return five servers that stop each in their own way: on EOF, by SIGTERM, by
	 * SIGKILL, with children, and one that crashed at start.
	 * @return the fixture script of each server, by name
	 */
	static Map<String, String> fiveServers() {
		Map<String, String> servers = new LinkedHashMap<>();
		servers.put("exits-on-eof", "echo.sh");
		servers.put("ignores-eof", "serves-ignores-eof.sh");
		servers.put("ignores-sigterm", "serves-ignores-sigterm.sh");
		servers.put("has-children", "with-children.sh");
		servers.put("crashed", "instant-exit.sh");
		return servers;
	}

	/**
	 * Add a server that runs a fixture script with {@code sh}, marked.
	 * @param properties the properties
	 * @param fixtures the marker
	 * @param name the server's name
	 * @param script the fixture script
	 * @param args more arguments
	 */
	static void server(Map<String, Object> properties, Fixtures fixtures, String name, String script, String... args) {
		String prefix = "mcp.stdio.servers." + name + ".";
		properties.put(prefix + "command", "sh");
		properties.put(prefix + "args[0]", Fixtures.script(script));
		for (int i = 0; i < args.length; i++) {
			properties.put(prefix + "args[" + (i + 1) + "]", args[i]);
		}
		properties.put(prefix + "env." + Fixtures.MARKER, fixtures.id());
	}

	/**
	 * Run an application without web server and shutdown hook.
	 * @param properties its properties
	 * @param more more configuration classes
	 * @return the running context
	 */
	static ConfigurableApplicationContext run(Map<String, Object> properties, Class<?>... more) {
		List<Class<?>> sources = new ArrayList<>(List.of(OnlyMcpStdio.class));
		sources.addAll(List.of(more));
		SpringApplication application = new SpringApplication(sources.toArray(Class[]::new));
		application.setWebApplicationType(WebApplicationType.NONE);
		application.setRegisterShutdownHook(false);
		application.setBannerMode(Banner.Mode.OFF);
		application.setDefaultProperties(properties);
		return application.run();
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration(McpStdioAutoConfiguration.class)
	static class OnlyMcpStdio {

	}

	/** Notes when the phase before the servers' and the one after it started. */
	@Configuration(proxyBeanMethods = false)
	static class MeasuresServerStart {

		@Bean
		SmartLifecycle beforeServers() {
			return new PhaseBean(McpStdioServer.PHASE - 2, () -> phaseStart.set(System.nanoTime()));
		}

		@Bean
		SmartLifecycle afterServers() {
			return new PhaseBean(McpStdioServer.PHASE + 1, () -> phaseEnd.set(System.nanoTime()));
		}

	}

	/** A lifecycle bean of a given phase that runs something when it starts. */
	static final class PhaseBean implements SmartLifecycle {

		private final int phase;

		private final Runnable onStart;

		private volatile boolean running;

		PhaseBean(int phase, Runnable onStart) {
			this.phase = phase;
			this.onStart = onStart;
		}

		@Override
		public void start() {
			this.onStart.run();
			this.running = true;
		}

		@Override
		public void stop() {
			this.running = false;
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		@Override
		public int getPhase() {
			return this.phase;
		}

	}

}

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

package dev.mcpstdio.bench.transport;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.bench.transport.Connection.Side;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The node echo servers of the transport benchmark's scenarios, started on either side:
 * one Spring context with the starter, or one SDK client each.
 *
 * @author mcp-stdio authors
 */
final class EchoServers {

	/** Servers of the shutdown, start-up and cost-at-rest scenarios. */
	private final int count;

	private final String node = Connection.executable("node");

	private final String echoScript;

	EchoServers(int count) throws Exception {
		this.count = count;
		this.echoScript = Path.of(EchoServers.class.getResource("/echo-server.js").toURI()).toString();
	}

	/**
	 * Return how many servers a scenario starts.
	 * @return the count
	 */
	int count() {
		return this.count;
	}

	/**
	 * Return the command of an echo server.
	 * @param mode {@code mcp}, {@code raw} or {@code ignore-eof}
	 * @return the command
	 */
	List<String> command(String mode) {
		return List.of(this.node, this.echoScript, mode);
	}

	/**
	 * Start a Spring context with the starter and {@link #count()} servers.
	 * @param mode the server's mode
	 * @param markers what each server's processes carry
	 * @return the running context
	 */
	ConfigurableApplicationContext context(String mode, Markers markers) {
		Map<String, Object> properties = new HashMap<>();
		properties.put("logging.level.dev.mcpstdio", "ERROR");
		properties.put("spring.main.banner-mode", "off");
		properties.put("spring.main.log-startup-info", "false");
		for (int i = 0; i < this.count; i++) {
			String prefix = "mcp.stdio.servers.echo-%02d.".formatted(i);
			properties.put(prefix + "command", this.node);
			properties.put(prefix + "args[0]", this.echoScript);
			properties.put(prefix + "args[1]", mode);
			properties.put(prefix + "env." + Markers.VARIABLE, markers.value());
		}
		SpringApplication application = new SpringApplication(TransportBenchmark.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.setDefaultProperties(properties);
		return application.run();
	}

	/**
	 * Open and initialize {@link #count()} clients of one side at once.
	 * @param side whose transport
	 * @param mode the server's mode
	 * @param markers what each server's processes carry
	 * @return the clients
	 * @throws Exception if one could not be opened within a minute
	 */
	List<Connection> openInitialized(Side side, String mode, Markers markers) throws Exception {
		List<Connection> connections = new ArrayList<>();
		ExecutorService executor = Executors.newFixedThreadPool(this.count, Results::daemon);
		try {
			List<Future<Connection>> futures = new ArrayList<>();
			for (int i = 0; i < this.count; i++) {
				String name = "echo-%02d".formatted(i);
				futures.add(executor.submit(() -> {
					Connection connection = Connection.open(side, name, command(mode), markers);
					connection.client().initialize();
					return connection;
				}));
			}
			for (Future<Connection> future : futures) {
				connections.add(future.get(60, TimeUnit.SECONDS));
			}
		}
		finally {
			executor.shutdownNow();
		}
		return connections;
	}

	/**
	 * Wait, bounded, until {@code expected} processes carry the markers.
	 * @param markers the markers
	 * @param expected how many
	 * @throws InterruptedException if interrupted
	 */
	static void awaitAlive(Markers markers, int expected) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (markers.alive().size() < expected) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException(
						"only " + markers.alive().size() + " of " + expected + " servers alive");
			}
			Thread.sleep(10);
		}
	}

	/**
	 * Close clients, all at once.
	 * @param connections the clients
	 */
	static void closeAll(List<Connection> connections) {
		connections.parallelStream().forEach(Connection::close);
	}

}

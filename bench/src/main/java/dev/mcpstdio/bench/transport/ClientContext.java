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

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.micrometer.core.instrument.MeterRegistry;
import io.modelcontextprotocol.client.McpSyncClient;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * An application whose MCP clients Spring AI's auto-configuration builds, over both
 * transports.
 *
 * @author mcp-stdio authors
 */
final class ClientContext implements AutoCloseable {

	/** The server that mcp-stdio runs: {@code mcp.stdio.servers.ours}. */
	static final String OURS = "ours";

	/** The server of Spring AI's own stdio transport (the SDK's). */
	static final String SDK = "sdk";

	private final ConfigurableApplicationContext context;

	private ClientContext(ConfigurableApplicationContext context) {
		this.context = context;
	}

	/**
	 * Run the application: one server through mcp-stdio, and one through Spring AI's
	 * stdio connections (not adopted by mcp-stdio) when {@code withSdk}; Spring AI's
	 * client and its 20 s request timeout, the actuator's observations and Prometheus
	 * registry, all as their defaults are.
	 * @param command the server's command, the same for both
	 * @param markers the marker every server carries
	 * @param withSdk whether to have the SDK's server too
	 * @param observations {@code mcp.stdio.observations.enabled}
	 * @return the running application
	 */
	static ClientContext start(List<String> command, Markers markers, boolean withSdk, boolean observations) {
		Map<String, Object> properties = new HashMap<>();
		properties.put("spring.main.banner-mode", "off");
		properties.put("spring.main.log-startup-info", "false");
		properties.put("mcp.stdio.observations.enabled", Boolean.toString(observations));
		put(properties, "mcp.stdio.servers." + OURS + ".", command, markers);
		if (withSdk) {
			properties.put("mcp.stdio.adopt-spring-ai-stdio", "false");
			put(properties, "spring.ai.mcp.client.stdio.connections." + SDK + ".", command, markers);
		}
		SpringApplication application = new SpringApplication(TransportBenchmark.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.setDefaultProperties(properties);
		return new ClientContext(application.run());
	}

	private static void put(Map<String, Object> properties, String prefix, List<String> command, Markers markers) {
		properties.put(prefix + "command", command.get(0));
		for (int i = 1; i < command.size(); i++) {
			properties.put(prefix + "args[" + (i - 1) + "]", command.get(i));
		}
		properties.put(prefix + "env." + Markers.VARIABLE, markers.value());
	}

	/**
	 * Return the initialized client of a server, as Spring AI named it.
	 * @param server {@link #OURS} or {@link #SDK}
	 * @return the client
	 */
	McpSyncClient client(String server) {
		@SuppressWarnings("unchecked")
		List<McpSyncClient> clients = this.context.getBean("mcpSyncClients", List.class);
		for (McpSyncClient client : clients) {
			// Spring AI names a client "<client name> - <connection name>"
			if (client.getClientInfo().name().endsWith(" - " + server)) {
				return client;
			}
		}
		throw new IllegalStateException("no client of " + server + " among "
				+ clients.stream().map((client) -> client.getClientInfo().name()).toList());
	}

	/**
	 * Return how many calls of a tool the observations recorded.
	 * @param tool the tool's name
	 * @return the count in {@code mcp.client.operation.duration}
	 */
	double observedCalls(String tool) {
		return this.context.getBean(MeterRegistry.class)
			.find("mcp.client.operation.duration")
			.tags("mcp.method.name", "tools/call", "gen_ai.tool.name", tool)
			.timers()
			.stream()
			.mapToDouble((timer) -> timer.count())
			.sum();
	}

	@Override
	public void close() {
		this.context.close();
	}

}

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

package dev.mcpstdio.actuate;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.mcpstdio.core.ExitCause;
import dev.mcpstdio.core.StdioServerProcess.StopResult;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * {@link MeterBinder} of the MCP servers: for each configured server its live processes,
 * their memory (and its {@code max-memory}, where set), whether it is up, its state, its
 * restarts, its process exits by cause, its pending requests, and the time each stop took
 * by outcome. The gauges and counters read the server when they are measured, so they
 * stay right through crashes, restarts and stops; the shutdown timer is recorded as each
 * stop ends.
 *
 * @author mcp-stdio authors
 */
public class McpStdioMetrics implements MeterBinder {

	private final McpStdioServers servers;

	private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();

	public McpStdioMetrics(McpStdioServers servers) {
		this.servers = servers;
		for (McpStdioServer server : servers.list()) {
			server.addListener(new ServerEvents());
		}
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		this.registries.add(registry);
		for (McpStdioServer server : this.servers.list()) {
			Tags tags = Tags.of("server", server.name());
			// Both gauges read one count per /proc snapshot (ProcessCensus shares it)
			Gauge.builder("mcp.stdio.processes", server, (s) -> s.treeStats().liveProcesses())
				.tags(tags)
				.description("Live OS processes of the MCP server's tree, the root included")
				.register(registry);
			Gauge.builder("mcp.stdio.memory", server, (s) -> s.treeStats().memoryBytes())
				.tags(tags)
				.baseUnit(BaseUnits.BYTES)
				.description("Resident memory of the MCP server's processes together")
				.register(registry);
			Long maxMemory = server.definition().limits().maxMemoryBytes();
			if (maxMemory != null) {
				// only where set: a ratio to an absent limit is no series, never a false
				// alert
				Gauge.builder("mcp.stdio.memory.max", () -> maxMemory)
					.tags(tags)
					.baseUnit(BaseUnits.BYTES)
					.description("The MCP server's max-memory: above it, mcp-stdio stops the server")
					.register(registry);
			}
			Gauge.builder("mcp.stdio.server.up", server, (s) -> (s.state() == ServerState.RUNNING) ? 1 : 0)
				.tags(tags)
				.description("1 while the MCP server is running, else 0")
				.register(registry);
			for (ServerState state : ServerState.values()) {
				Gauge.builder("mcp.stdio.server.state", server, (s) -> (s.state() == state) ? 1 : 0)
					.tags(tags.and("state", state.name()))
					.description("1 for the MCP server's current state, 0 for every other state")
					.register(registry);
			}
			FunctionCounter.builder("mcp.stdio.server.restarts", server, McpStdioServer::restarts)
				.tags(tags)
				.description("Restarts of the MCP server, by its policy or the endpoint")
				.register(registry);
			for (ExitCause cause : ExitCause.values()) {
				FunctionCounter.builder("mcp.stdio.server.exits", server, (s) -> s.exits(cause))
					.tags(tags.and("cause", cause.name()))
					.description("Process endings of the MCP server, by cause")
					.register(registry);
			}
			Gauge.builder("mcp.stdio.requests.pending", server, McpStdioServer::pendingRequests)
				.tags(tags)
				.description("Requests sent to the MCP server and not yet answered")
				.register(registry);
		}
	}

	private Timer shutdownTimer(MeterRegistry registry, String server, ExitCause outcome) {
		return Timer.builder("mcp.stdio.shutdown")
			.tags("server", server, "outcome", outcome.name())
			.description("One stop of the MCP server, from the drain to the last process gone")
			.register(registry);
	}

	private final class ServerEvents implements McpStdioServer.Listener {

		@Override
		public void stopped(McpStdioServer server, StopResult result) {
			for (MeterRegistry registry : McpStdioMetrics.this.registries) {
				shutdownTimer(registry, server.name(), result.outcome()).record(result.duration());
			}
		}

	}

}

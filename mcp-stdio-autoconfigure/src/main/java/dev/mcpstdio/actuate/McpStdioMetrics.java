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
import java.util.function.ToDoubleFunction;

import dev.mcpstdio.core.server.ExitCause;
import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.core.server.StdioServerProcess.StopResult;
import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers.Outcome;
import dev.mcpstdio.lifecycle.McpStdioServers.Reload;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerListener;
import dev.mcpstdio.lifecycle.ServerState;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.search.Search;
import org.jspecify.annotations.Nullable;

/**
 * Micrometer meters of the MCP servers, their processes, stops and sessions.
 *
 * @author mcp-stdio authors
 */
public class McpStdioMetrics implements MeterBinder {

	/**
	 * The timer of the sessions after the OpenTelemetry MCP semantic conventions: one
	 * record per process generation of a server, its uptime. A timer rather than an
	 * observation: a session lasts as long as its process, and a span that long helps no
	 * trace.
	 */
	public static final String SESSION_DURATION = "mcp.client.session.duration";

	private final McpStdioServers servers;

	private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();

	public McpStdioMetrics(McpStdioServers servers) {
		this.servers = servers;
		servers.list().forEach((server) -> server.addListener(new ServerEvents()));
		servers.addListener(new Reloads());
	}

	// The gauges and counters read the server when they are measured, so they stay right
	// through crashes, restarts and stops; the timers are recorded as each stop or
	// session ends
	@Override
	public void bindTo(MeterRegistry registry) {
		this.registries.add(registry);
		List.of(Outcome.values()).forEach((outcome) -> reloads(registry, outcome));
		this.servers.list().forEach((server) -> bindTo(registry, server));
	}

	private static Counter reloads(MeterRegistry registry, Outcome outcome) {
		return Counter.builder("mcp.stdio.reloads")
			.tag("outcome", outcome.name())
			.description("Reloads of the MCP server set, by outcome")
			.register(registry);
	}

	private void bindTo(MeterRegistry registry, McpStdioServer server) {
		Tags tags = Tags.of("server", server.name());
		// Both gauges read one count per /proc snapshot (ServerHost.count shares it)
		gauge(registry, "mcp.stdio.processes", tags, server, (s) -> s.treeStats().liveProcesses(),
				"Live OS processes of the MCP server's tree, the root included");
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
		gauge(registry, "mcp.stdio.server.up", tags, server, (s) -> s.isUp() ? 1 : 0,
				"1 while the MCP server is running (a per-user server: while it can start instances), else 0");
		for (ServerState state : ServerState.values()) {
			gauge(registry, "mcp.stdio.server.state", tags.and("state", state.name()), server,
					(s) -> (s.state() == state) ? 1 : 0,
					"1 for the MCP server's current state, 0 for every other state");
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
		gauge(registry, "mcp.stdio.instances", tags, server, McpStdioMetrics::runningInstances,
				"Instances of the MCP server: of a per-user server, one per user (as the endpoint counts them); else 1 while it runs, or 0");
		gauge(registry, "mcp.stdio.requests.pending", tags, server, McpStdioServer::pendingRequests,
				"Requests sent to the MCP server and not yet answered");
		// The sessions that ended without an error exist from the start, at 0, so that a
		// rate sees the first one
		sessionTimer(registry, sessionTags(server.name()));
	}

	private static void gauge(MeterRegistry registry, String name, Tags tags, McpStdioServer server,
			ToDoubleFunction<McpStdioServer> value, String description) {
		Gauge.builder(name, server, value).tags(tags).description(description).register(registry);
	}

	/**
	 * Adds the meters of the servers a reload added, removes those of the ones it
	 * removed.
	 */
	private final class Reloads implements McpStdioServers.Listener {

		@Override
		public void added(McpStdioServer server) {
			server.addListener(new ServerEvents());
			McpStdioMetrics.this.registries.forEach((registry) -> bindTo(registry, server));
		}

		@Override
		public void removed(McpStdioServer server) {
			McpStdioMetrics.this.registries.forEach((registry) -> Search.in(registry)
				.name((name) -> name.startsWith("mcp.stdio.") || name.startsWith("mcp.client."))
				.tag("server", server.name())
				.meters()
				.forEach(registry::remove));
		}

		@Override
		public void reloaded(Reload reload) {
			McpStdioMetrics.this.registries.forEach((registry) -> reloads(registry, reload.outcome()).increment());
		}

	}

	private static long runningInstances(McpStdioServer server) {
		// a per-user server's instances as the endpoint counts them: a gone one is
		// removed at once
		return (server.definition().demand().perUser() != null) ? server.instances().size()
				: (server.state() == ServerState.RUNNING) ? 1 : 0;
	}

	private static Tags sessionTags(String server) {
		return Tags.of("server", server, "network.transport", "pipe");
	}

	private static Timer sessionTimer(MeterRegistry registry, Tags tags) {
		return Timer.builder(SESSION_DURATION)
			.tags(tags)
			.description("One process generation of the MCP server, from its start to its end")
			.register(registry);
	}

	/** Follows one server: each process that ran is a session, ended by its exit. */
	private final class ServerEvents implements ServerListener {

		private @Nullable StdioServerProcess last;

		@Override
		public void stateChanged(McpStdioServer server, ServerState state) {
			// called under the server's lock, once per state change; a process is a
			// session once it ran: one whose start failed is none
			StdioServerProcess process = server.process();
			if (state != ServerState.RUNNING || process == null || process == this.last) {
				return;
			}
			this.last = process;
			process.exit().thenAccept(this::sessionEnded);
		}

		private void sessionEnded(ExitInfo exit) {
			Tags tags = sessionTags(exit.serverName());
			Tags ended = exit.cause().isFailure() ? tags.and("error.type", exit.cause().name()) : tags;
			McpStdioMetrics.this.registries.forEach((registry) -> sessionTimer(registry, ended).record(exit.uptime()));
		}

		@Override
		public void stopped(McpStdioServer server, StopResult result) {
			McpStdioMetrics.this.registries.forEach((registry) -> Timer.builder("mcp.stdio.shutdown")
				.tags("server", server.name(), "outcome", result.outcome().name())
				.description("One stop of the MCP server, from the drain to the last process gone")
				.register(registry)
				.record(result.duration()));
		}

	}

}

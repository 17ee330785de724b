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

import dev.mcpstdio.core.ExitInfo;
import dev.mcpstdio.core.StdioServerProcess;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

/**
 * {@link MeterBinder} of {@code mcp.client.session.duration} after the OpenTelemetry MCP
 * semantic conventions: one record per process generation of a server, its uptime, tagged
 * {@code server}, {@code network.transport} and, when it ended as a failure, {@code
 * error.type} with the exit cause. A timer rather than an observation: a session lasts as
 * long as its process, and a span that long helps no trace.
 *
 * @author mcp-stdio authors
 */
public class McpClientSessionMetrics implements MeterBinder {

	/** The timer's name. */
	public static final String NAME = "mcp.client.session.duration";

	private final McpStdioServers servers;

	private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();

	public McpClientSessionMetrics(McpStdioServers servers) {
		this.servers = servers;
		for (McpStdioServer server : servers.list()) {
			server.addListener(new Sessions());
		}
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		this.registries.add(registry);
		// The sessions that ended without an error exist from the start, at 0, so that a
		// rate sees the first one
		for (McpStdioServer server : this.servers.list()) {
			timer(registry, tags(server.name()));
		}
	}

	private void record(ExitInfo exit) {
		Tags tags = tags(exit.serverName());
		if (exit.cause().isFailure()) {
			tags = tags.and("error.type", exit.cause().name());
		}
		for (MeterRegistry registry : this.registries) {
			timer(registry, tags).record(exit.uptime());
		}
	}

	private static Tags tags(String server) {
		return Tags.of("server", server, "network.transport", "pipe");
	}

	private static Timer timer(MeterRegistry registry, Tags tags) {
		return Timer.builder(NAME)
			.tags(tags)
			.description("One process generation of the MCP server, from its start to its end")
			.register(registry);
	}

	/** Follows one server: every process that runs is a session, ended by its exit. */
	private final class Sessions implements McpStdioServer.Listener {

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
			process.exit().thenAccept(McpClientSessionMetrics.this::record);
		}

	}

}

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

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;

import org.springframework.boot.health.actuate.endpoint.SimpleStatusAggregator;
import org.springframework.boot.health.actuate.endpoint.StatusAggregator;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * Health indicator of the MCP servers: the worst status of their states wins.
 *
 * @author mcp-stdio authors
 */
public class McpServersHealthIndicator extends AbstractHealthIndicator {

	/**
	 * Unlike Boot's default order, {@code UNKNOWN} (a start under way) ranks above UP.
	 * Boot 4.1 deprecates {@code SimpleStatusAggregator} for {@code StatusAggregator.of},
	 * which Boot 4.0 lacks: switch when 4.0 is no longer built (after 2026-12-31).
	 */
	@SuppressWarnings("removal")
	private static final StatusAggregator AGGREGATOR = new SimpleStatusAggregator(Status.DOWN, Status.OUT_OF_SERVICE,
			Status.UNKNOWN, Status.UP);

	private final McpStdioServers servers;

	private final boolean countOptional;

	/**
	 * Create the indicator.
	 * @param servers the servers
	 * @param countOptional whether servers that are not required count like required ones
	 */
	public McpServersHealthIndicator(McpStdioServers servers, boolean countOptional) {
		super("MCP servers health check failed");
		this.servers = servers;
		this.countOptional = countOptional;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		List<Status> statuses = new ArrayList<>();
		for (McpStdioServer server : this.servers.list()) {
			ServerState state = server.state();
			// every server's state is in the details
			builder.withDetail(server.name(), state.name());
			statuses.add(status(state, this.countOptional || server.definition().required()));
		}
		builder.status(aggregate(statuses));
	}

	/**
	 * Return the status the statuses of the servers give together: the worst.
	 * @param statuses the statuses
	 * @return the status
	 */
	static Status aggregate(Collection<Status> statuses) {
		// UP is always there: no servers at all is UP, not UNKNOWN
		Set<Status> all = new HashSet<>(statuses);
		all.add(Status.UP);
		return AGGREGATOR.getAggregateStatus(all);
	}

	/**
	 * Return the status of one server's state.
	 * @param state the state
	 * @param counts whether the server can take the application out: it is required, or
	 * optional servers count
	 * @return its status; {@code UP} for a failed or stopped server that does not count
	 */
	static Status status(ServerState state, boolean counts) {
		Status status = status(state);
		// DOWN or OUT_OF_SERVICE is HTTP 503, which would take the instance out of its
		// load balancer for one optional tool: shown as FAILED or STOPPED in the details
		// only
		return (!counts && (Status.DOWN.equals(status) || Status.OUT_OF_SERVICE.equals(status))) ? Status.UP : status;
	}

	/**
	 * Return the status of one state. A switch without a default: a new state does not
	 * compile until it is given its status here.
	 * @param state the state
	 * @return its status
	 */
	static Status status(ServerState state) {
		return switch (state) {
			// IDLE: no process until its next message, on purpose (lazy or idle-timeout)
			case RUNNING, DISABLED, IDLE -> Status.UP;
			// Transitional: it is not known yet whether the server comes up
			case STARTING, RESTARTING -> Status.UNKNOWN;
			// Taken out of service on purpose, by the endpoint or by shutdown
			case STOPPING, STOPPED -> Status.OUT_OF_SERVICE;
			case FAILED -> Status.DOWN;
		};
	}

}

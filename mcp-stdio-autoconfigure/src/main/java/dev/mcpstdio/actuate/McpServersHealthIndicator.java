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

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * {@link HealthIndicator} of the MCP servers, contributed as {@code mcpServers}:
 * {@code DOWN} when any enabled server is {@code FAILED}, else {@code OUT_OF_SERVICE}
 * when any is stopping or stopped, else {@code UNKNOWN} when any is starting or waiting
 * for its restart, else {@code UP}. Disabled servers do not count. Each server's state is
 * in the details.
 *
 * @author mcp-stdio authors
 */
public class McpServersHealthIndicator extends AbstractHealthIndicator {

	private final McpStdioServers servers;

	public McpServersHealthIndicator(McpStdioServers servers) {
		super("MCP servers health check failed");
		this.servers = servers;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		Map<String, ServerState> states = new LinkedHashMap<>();
		for (McpStdioServer server : this.servers.list()) {
			states.put(server.name(), server.state());
		}
		builder.status(status(states.values()));
		states.forEach((name, state) -> builder.withDetail(name, state.name()));
	}

	/**
	 * Return the status the states of the servers give together.
	 * @param states the states
	 * @return the status
	 */
	static Status status(Collection<ServerState> states) {
		Status status = Status.UP;
		for (ServerState state : states) {
			Status own = status(state);
			if (rank(own) > rank(status)) {
				status = own;
			}
		}
		return status;
	}

	private static Status status(ServerState state) {
		return switch (state) {
			case RUNNING, DISABLED -> Status.UP;
			// Transitional: it is not known yet whether the server comes up
			case STARTING, RESTARTING -> Status.UNKNOWN;
			// Taken out of service on purpose, by the endpoint or by shutdown
			case STOPPING, STOPPED -> Status.OUT_OF_SERVICE;
			case FAILED -> Status.DOWN;
		};
	}

	private static int rank(Status status) {
		if (Status.DOWN.equals(status)) {
			return 3;
		}
		if (Status.OUT_OF_SERVICE.equals(status)) {
			return 2;
		}
		return Status.UNKNOWN.equals(status) ? 1 : 0;
	}

}

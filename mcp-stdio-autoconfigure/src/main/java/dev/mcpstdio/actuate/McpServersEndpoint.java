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

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonInclude.Include;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.ExitCause;
import dev.mcpstdio.core.ExitInfo;
import dev.mcpstdio.core.ProcessCensus.TreeStats;
import dev.mcpstdio.core.StdioServerSpec;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * {@link Endpoint @Endpoint} that shows the configured MCP servers, their state and their
 * live processes, and restarts, stops or starts one of them.
 * <p>
 * Environment values are never shown, and secret-looking arguments of a command line are
 * masked.
 *
 * @author mcp-stdio authors
 */
@Endpoint(id = "mcpservers")
public class McpServersEndpoint {

	private static final int CONFLICT = 409;

	private final McpStdioServers servers;

	public McpServersEndpoint(McpStdioServers servers) {
		this.servers = servers;
	}

	@ReadOperation
	public McpServersDescriptor servers() {
		Map<String, McpServerDescriptor> descriptors = new LinkedHashMap<>();
		int liveProcesses = 0;
		for (McpStdioServer server : this.servers.list()) {
			McpServerDescriptor descriptor = describe(server);
			descriptors.put(server.name(), descriptor);
			liveProcesses += descriptor.liveProcesses();
		}
		return new McpServersDescriptor(descriptors, liveProcesses);
	}

	@ReadOperation
	public WebEndpointResponse<McpServerDescriptor> server(@Selector String name) {
		McpStdioServer server = this.servers.find(name);
		if (server == null) {
			return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		return new WebEndpointResponse<>(describe(server));
	}

	/**
	 * Act on one server.
	 * @param name the server
	 * @param action {@code restart}, {@code stop} or {@code start}
	 * @return the server after the action, or an error
	 */
	@WriteOperation
	public WebEndpointResponse<Object> act(@Selector String name, String action) {
		McpStdioServer server = this.servers.find(name);
		if (server == null) {
			return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
		}
		Action parsed = Action.from(action);
		if (parsed == null) {
			return new WebEndpointResponse<>(
					new ActionFailure("Unknown action '" + action + "'; use restart, stop or start", null),
					WebEndpointResponse.STATUS_BAD_REQUEST);
		}
		if (parsed != Action.STOP && server.state() == ServerState.DISABLED) {
			return new WebEndpointResponse<>(
					new ActionFailure("MCP server '" + name + "' is disabled", describe(server)), CONFLICT);
		}
		try {
			switch (parsed) {
				case RESTART -> server.restartServer();
				case STOP -> server.stopServer();
				case START -> server.startServer();
			}
		}
		catch (McpStdioException ex) {
			return new WebEndpointResponse<>(new ActionFailure(ex.getMessage(), describe(server)),
					WebEndpointResponse.STATUS_INTERNAL_SERVER_ERROR);
		}
		return new WebEndpointResponse<>(describe(server));
	}

	private McpServerDescriptor describe(McpStdioServer server) {
		// One census per server and read: every figure comes from the same snapshot
		TreeStats stats = server.treeStats();
		StdioServerSpec spec = server.definition().spec();
		ExitInfo exit = server.lastExit();
		return new McpServerDescriptor(server.state(), server.isInitialized(), server.pid(), stats.liveProcesses(),
				stats.memoryBytes(), spec.commandLine(), server.startedAt(), server.restarts(),
				server.pendingRequests(), (exit != null) ? LastExitDescriptor.of(exit) : null);
	}

	private enum Action {

		RESTART, STOP, START;

		static @Nullable Action from(String action) {
			for (Action candidate : values()) {
				if (candidate.name().equalsIgnoreCase(action.trim())) {
					return candidate;
				}
			}
			return null;
		}

	}

	/**
	 * Every configured server and the live processes of all of them.
	 *
	 * @param servers the servers by name, in configuration order
	 * @param liveProcesses the live processes of all servers together
	 */
	public record McpServersDescriptor(Map<String, McpServerDescriptor> servers,
			int liveProcesses) implements OperationResponseBody {

	}

	/**
	 * One server.
	 *
	 * @param state its state
	 * @param initialized whether its MCP {@code initialize} was answered
	 * @param pid the pid of its running process, {@code null} when none runs
	 * @param liveProcesses its live processes, the root included
	 * @param memoryBytes their resident memory together
	 * @param command its command line, secret-looking arguments masked
	 * @param startedAt when its running process started, {@code null} when none runs
	 * @param restarts how often it was restarted
	 * @param pendingRequests requests sent and not yet answered
	 * @param lastExit how its last process ended, {@code null} when none has
	 */
	public record McpServerDescriptor(ServerState state, boolean initialized,
			@JsonInclude(Include.ALWAYS) @Nullable Long pid, int liveProcesses, long memoryBytes, String command,
			@JsonInclude(Include.ALWAYS) @Nullable Instant startedAt, long restarts, int pendingRequests,
			@JsonInclude(Include.ALWAYS) @Nullable LastExitDescriptor lastExit) implements OperationResponseBody {

	}

	/**
	 * How a server's last process ended.
	 *
	 * @param exitCode its exit code, {@code 128 + N} for signal N
	 * @param at when it ended
	 * @param cause why it ended
	 * @param stderrTail the last lines it wrote to stderr
	 */
	public record LastExitDescriptor(int exitCode, Instant at, ExitCause cause, List<String> stderrTail) {

		static LastExitDescriptor of(ExitInfo exit) {
			return new LastExitDescriptor(exit.exitCode(), exit.at(), exit.cause(), exit.stderrTail());
		}

	}

	/**
	 * Why an action failed.
	 *
	 * @param message what went wrong
	 * @param server the server as it is now, when there is one
	 */
	public record ActionFailure(@Nullable String message,
			@Nullable McpServerDescriptor server) implements OperationResponseBody {

	}

}

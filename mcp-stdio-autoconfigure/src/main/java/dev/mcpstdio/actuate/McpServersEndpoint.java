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
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonInclude.Include;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.mcpstdio.core.server.ExitCause;
import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.core.containment.Containment.SandboxSettings;
import dev.mcpstdio.core.secrets.SecretSanitizer;
import dev.mcpstdio.core.tree.ProcessTree;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.McpStdioServers.Outcome;
import dev.mcpstdio.lifecycle.McpStdioServers.Reload;
import dev.mcpstdio.lifecycle.ServerState;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * Actuator endpoint that shows the MCP servers and restarts, stops or starts one.
 *
 * @author mcp-stdio authors
 */
@Endpoint(id = "mcpservers", defaultAccess = Access.READ_ONLY)
public class McpServersEndpoint {

	private final ServerDescriptions descriptions;

	private final ServerActions actions;

	/**
	 * When arguments and stderr tails are shown, sanitized; environment values never are.
	 */
	private final Show showValues;

	public McpServersEndpoint(McpStdioServers servers, Show showValues) {
		this.descriptions = new ServerDescriptions(servers);
		this.actions = new ServerActions(servers, this.descriptions);
		this.showValues = showValues;
	}

	// Without a web request there is no user to authorize, so WHEN_AUTHORIZED shows the
	// values, as Boot does for JMX
	@ReadOperation
	public McpServersDescriptor servers() {
		return this.descriptions.servers(this.showValues.isShown(true));
	}

	@ReadOperation
	public @Nullable McpServerDescriptor server(@Selector String name) {
		return this.descriptions.server(name, this.showValues.isShown(true));
	}

	/**
	 * Act on one server; HTTP status codes are the business of
	 * {@link McpServersEndpointWebExtension}.
	 * @param name the server
	 * @param action {@code restart}, {@code stop} or {@code start}
	 * @return the server after the action
	 */
	@WriteOperation
	public McpServerDescriptor act(@Selector String name, String action) {
		ActionResult result = this.actions.perform(name, action, this.showValues.isShown(true));
		return switch (result.outcome()) {
			case DONE -> Objects.requireNonNull(result.server());
			case UNKNOWN_SERVER, UNKNOWN_ACTION ->
				throw new InvalidEndpointRequestException(result.message(), result.message());
			case CONFLICT, FAILED -> throw new IllegalStateException(result.message());
		};
	}

	/**
	 * Reload the server set from the configuration; the only action without a server.
	 * @param action {@code reload}
	 * @return the servers after the reload, its outcome in {@code reload}
	 */
	@WriteOperation
	public McpServersDescriptor reload(String action) {
		ActionResult result = this.actions.reload(action);
		if (result.outcome() != ActionOutcome.DONE) {
			throw new InvalidEndpointRequestException(result.message(), result.message());
		}
		return this.descriptions.servers(this.showValues.isShown(true));
	}

	/**
	 * Return what the endpoint shows of the servers, for its web extension too.
	 * @return the descriptions
	 */
	ServerDescriptions descriptions() {
		return this.descriptions;
	}

	/**
	 * Return the endpoint's actions, for its web extension too.
	 * @return the actions
	 */
	ServerActions actions() {
		return this.actions;
	}

	/**
	 * Every configured server and the live processes of all of them.
	 *
	 * @param servers the servers by name, in configuration order
	 * @param liveProcesses the live processes of all servers together
	 * @param reload how the last reload of the server set went, {@code null} before the
	 * first
	 */
	public record McpServersDescriptor(Map<String, McpServerDescriptor> servers, int liveProcesses,
			@JsonInclude(Include.ALWAYS) @Nullable ReloadDescriptor reload) implements OperationResponseBody {

	}

	/**
	 * The last reload of the server set.
	 *
	 * @param at when it ended
	 * @param outcome what came of it
	 * @param added the servers it added
	 * @param removed the servers it removed
	 * @param changed the servers it restarted with new settings
	 * @param problem why the new set was rejected, {@code null} unless it was
	 */
	public record ReloadDescriptor(Instant at, Outcome outcome, List<String> added, List<String> removed,
			List<String> changed, @JsonInclude(Include.ALWAYS) @Nullable String problem) {

		static @Nullable ReloadDescriptor of(@Nullable Reload reload) {
			return (reload != null) ? new ReloadDescriptor(reload.at(), reload.outcome(), reload.added(),
					reload.removed(), reload.changed(), reload.problem()) : null;
		}

	}

	/**
	 * One server.
	 *
	 * @param state its state
	 * @param initialized whether its MCP {@code initialize} was answered
	 * @param process its processes, shown among the server's own fields
	 * @param restarts how often it was restarted
	 * @param pendingRequests requests sent and not yet answered
	 * @param lastExit how its last process ended, {@code null} when none has
	 */
	public record McpServerDescriptor(ServerState state, boolean initialized, @JsonUnwrapped ProcessDescriptor process,
			long restarts, int pendingRequests,
			@JsonInclude(Include.ALWAYS) @Nullable LastExitDescriptor lastExit) implements OperationResponseBody {

	}

	/**
	 * A server's processes.
	 *
	 * @param pid the pid of its running process, {@code null} when none runs
	 * @param liveProcesses its live processes, the root included
	 * @param memoryBytes their resident memory together
	 * @param command its command line, sanitized; its arguments withheld unless values
	 * are shown
	 * @param startedAt when its current process started while it is {@code RUNNING}, else
	 * {@code null}
	 * @param sandbox its sandbox, left out when it runs without one
	 */
	public record ProcessDescriptor(@JsonInclude(Include.ALWAYS) @Nullable Long pid, int liveProcesses,
			long memoryBytes, String command, @JsonInclude(Include.ALWAYS) @Nullable Instant startedAt,
			@Nullable SandboxDescriptor sandbox, @JsonUnwrapped @Nullable InstancesDescriptor perUser) {

	}

	/**
	 * A server's sandbox.
	 *
	 * @param network {@code none} or {@code host}
	 * @param readWrite the paths it may write, sanitized
	 * @param readOnly the paths it may read that the sandbox hides otherwise, sanitized
	 */
	public record SandboxDescriptor(String network, List<String> readWrite, List<String> readOnly) {

		static SandboxDescriptor of(SandboxSettings sandbox, StdioServerSpec spec) {
			return new SandboxDescriptor(sandbox.network().name().toLowerCase(Locale.ROOT),
					sandbox.readWrite().stream().map((path) -> spec.sanitize(path.toString())).toList(),
					sandbox.readOnly().stream().map((path) -> spec.sanitize(path.toString())).toList());
		}

	}

	/**
	 * The instances of a per-user server.
	 *
	 * @param instances how many there are
	 * @param users each instance, under the opaque key of its user
	 */
	public record InstancesDescriptor(int instances, Map<String, InstanceDescriptor> users) {

		static @Nullable InstancesDescriptor of(McpStdioServer server) {
			if (server.definition().demand().perUser() == null) {
				return null;
			}
			Map<String, InstanceDescriptor> users = new LinkedHashMap<>();
			server.instances().forEach((key, instance) -> {
				ProcessTree.Stats stats = instance.treeStats();
				users.put(key, new InstanceDescriptor(instance.state(), instance.pid(), stats.liveProcesses(),
						stats.memoryBytes(), instance.lastUsed()));
			});
			return new InstancesDescriptor(users.size(), users);
		}

	}

	/**
	 * One instance of a per-user server.
	 *
	 * @param state its state
	 * @param pid the pid of its running process, {@code null} when none runs
	 * @param liveProcesses its live processes
	 * @param memoryBytes their resident memory together
	 * @param lastUsed when a message last went to or came from it
	 */
	public record InstanceDescriptor(ServerState state, @JsonInclude(Include.ALWAYS) @Nullable Long pid,
			int liveProcesses, long memoryBytes, Instant lastUsed) {

	}

	/**
	 * How a server's last process ended.
	 *
	 * @param exitCode its exit code, {@code 128 + N} for signal N
	 * @param at when it ended
	 * @param cause why it ended
	 * @param stderrTail the last lines it wrote to stderr, sanitized; each line withheld
	 * unless values are shown
	 */
	public record LastExitDescriptor(int exitCode, Instant at, ExitCause cause, List<String> stderrTail) {

		static LastExitDescriptor of(ExitInfo exit, boolean showValues) {
			List<String> tail = showValues ? exit.stderrTail()
					: Collections.nCopies(exit.stderrTail().size(), SecretSanitizer.MASK);
			return new LastExitDescriptor(exit.exitCode(), exit.at(), exit.cause(), tail);
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

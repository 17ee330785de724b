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

import java.util.Locale;

import dev.mcpstdio.McpServerExitedException;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.secrets.SecretSanitizer;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;

/**
 * The endpoint's actions: restart, stop or start one server, reload the server set; what
 * came of each, for each technology to express in its own way.
 *
 * @author mcp-stdio authors
 */
final class ServerActions {

	private final McpStdioServers servers;

	private final ServerDescriptions descriptions;

	ServerActions(McpStdioServers servers, ServerDescriptions descriptions) {
		this.servers = servers;
		this.descriptions = descriptions;
	}

	/**
	 * Reload the server set.
	 * @param action must be {@code reload}
	 * @return what came of it: {@code UNKNOWN_ACTION}, {@code CONFLICT} when the
	 * application is stopping, else {@code DONE} (the reload's own outcome is in the
	 * servers' descriptor)
	 */
	ActionResult reload(String action) {
		if (!"reload".equalsIgnoreCase(action.trim())) {
			return new ActionResult(ActionOutcome.UNKNOWN_ACTION, "Unknown action '" + SecretSanitizer.quote(action, 40)
					+ "'; the servers as a whole take reload, one server restart, stop or start", null);
		}
		if (this.servers.reload() == null) {
			return new ActionResult(ActionOutcome.CONFLICT,
					"The servers were not reloaded: the application is stopping or another reload is under way", null);
		}
		return new ActionResult(ActionOutcome.DONE, null, null);
	}

	/**
	 * Act on one server.
	 * @param name the server
	 * @param action {@code restart}, {@code stop} or {@code start}
	 * @param showValues whether arguments and stderr tails are shown (sanitized)
	 * @return what came of it
	 */
	ActionResult perform(String name, String action, boolean showValues) {
		McpStdioServer server = this.servers.find(name);
		if (server == null) {
			return new ActionResult(ActionOutcome.UNKNOWN_SERVER, "No " + McpStdioException.describe(name), null);
		}
		String parsed = action.trim().toLowerCase(Locale.ROOT);
		Runnable act = switch (parsed) {
			case "restart" -> server::restartServer;
			case "stop" -> server::stopServer;
			case "start" -> server::startServer;
			default -> null;
		};
		if (act == null) {
			return new ActionResult(ActionOutcome.UNKNOWN_ACTION,
					"Unknown action '" + SecretSanitizer.quote(action, 40) + "'; use restart, stop or start", null);
		}
		if (!"stop".equals(parsed) && server.state() == ServerState.DISABLED) {
			return new ActionResult(ActionOutcome.CONFLICT, McpStdioException.describe(name) + " is disabled",
					this.descriptions.describe(server, showValues));
		}
		try {
			act.run();
		}
		catch (McpStdioException ex) {
			return new ActionResult(ActionOutcome.FAILED, failureMessage(server, parsed, ex, showValues),
					this.descriptions.describe(server, showValues));
		}
		return new ActionResult(ActionOutcome.DONE, null, this.descriptions.describe(server, showValues));
	}

	private static String failureMessage(McpStdioServer server, String action, McpStdioException ex,
			boolean showValues) {
		if (showValues) {
			return server.definition().spec().sanitize(String.valueOf(ex.getMessage()));
		}
		// The message may quote the command line or stderr
		String exitCode = (ex instanceof McpServerExitedException exited) ? ", exit code " + exited.exitCode() : "";
		return "Could not " + action + " " + McpStdioException.describe(server.name()) + " ("
				+ ex.getClass().getSimpleName() + exitCode + "); its message is withheld, as arguments and stderr are"
				+ " (management.endpoint.mcpservers.show-values)";
	}

}

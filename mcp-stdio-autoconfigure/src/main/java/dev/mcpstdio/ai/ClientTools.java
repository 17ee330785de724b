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

package dev.mcpstdio.ai;

import java.util.List;

import dev.mcpstdio.ai.ToolGathering.Client;
import dev.mcpstdio.ai.ToolGathering.Customizers;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.ServerState;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.mcp.McpConnectionInfo;
import org.springframework.ai.tool.ToolCallback;

/**
 * One MCP client, Spring AI's or the starter's own, and the tool callbacks of the tools
 * it listed last.
 *
 * @author mcp-stdio authors
 */
final class ClientTools {

	private final Client client;

	private final String connection;

	private final @Nullable McpStdioServer server;

	private final Customizers customizers;

	private final ToolAbsences absences;

	private volatile @Nullable List<ToolCallback> callbacks;

	private volatile boolean stale = true;

	private volatile long failedAt;

	private volatile boolean failed;

	/**
	 * Create the tools of a client.
	 * @param client the client
	 * @param connection its connection name
	 * @param server the mcp-stdio server it serves, else {@code null}
	 * @param customizers the application's say in the tools
	 * @param absences what tells why tools are left out
	 */
	ClientTools(Client client, String connection, @Nullable McpStdioServer server, Customizers customizers,
			ToolAbsences absences) {
		this.client = client;
		this.connection = connection;
		this.server = server;
		this.customizers = customizers;
		this.absences = absences;
	}

	Client client() {
		return this.client;
	}

	String connection() {
		return this.connection;
	}

	@Nullable McpStdioServer server() {
		return this.server;
	}

	/** List the client's tools again when they are next asked for. */
	void invalidate() {
		this.stale = true;
	}

	/**
	 * Return the client's tools now: none while its mcp-stdio server is {@code FAILED} or
	 * stopped (one WARN per absence), the last known while it is lazy or {@code IDLE} (a
	 * call starts it).
	 */
	List<ToolCallback> current() {
		List<ToolCallback> known = this.callbacks;
		if (this.server != null) {
			ServerState state = this.server.state();
			if (state == ServerState.FAILED || state == ServerState.STOPPED || state == ServerState.STOPPING
					|| state == ServerState.DISABLED) {
				this.absences.tellLeftOut(this.server, null);
				return List.of();
			}
			if (known != null && state != ServerState.RUNNING) {
				// IDLE, or between two processes: its last known tools, and a call
				// starts it or waits for it
				return known;
			}
		}
		if (known != null && !this.stale) {
			return known;
		}
		if (this.failed && System.nanoTime() - this.failedAt < ToolAbsences.RETRY_NANOS) {
			return (known != null) ? known : List.of();
		}
		return list();
	}

	private synchronized List<ToolCallback> list() {
		List<ToolCallback> known = this.callbacks;
		if (known != null && !this.stale) {
			// listed by another caller meanwhile
			return known;
		}
		try {
			List<Tool> tools = this.client.tools().get();
			this.failed = false;
			if (this.server != null) {
				this.absences.present(this.server);
			}
			return take(tools);
		}
		catch (RuntimeException ex) {
			this.failed = true;
			this.failedAt = System.nanoTime();
			if (this.server != null) {
				this.absences.tellLeftOut(this.server,
						(this.server.state() == ServerState.FAILED) ? null : ToolAbsences.messageOf(ex));
			}
			else {
				this.absences.unlisted(this.connection, ex);
			}
			return List.of();
		}
	}

	synchronized List<ToolCallback> take(List<Tool> tools) {
		McpConnectionInfo info = this.client.connection().get();
		Customizers customizers = this.customizers;
		List<ToolCallback> callbacks = tools.stream()
			.filter((tool) -> customizers.filter().test(info, tool))
			.<ToolCallback>map((tool) -> new ExitTellingToolCallback(
					this.client.callback().apply(tool, customizers.prefixes().prefixedToolName(info, tool)),
					this.connection))
			.toList();
		this.callbacks = callbacks;
		this.stale = false;
		return callbacks;
	}

}

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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Consumer;

import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.ai.ToolGathering.Client;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.ServerListener;
import dev.mcpstdio.lifecycle.ServerState;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.tool.ToolCallback;

/**
 * The client of one instance of a per-user server, closed and forgotten with its
 * instance.
 *
 * @author mcp-stdio authors
 */
final class InstanceClient implements ServerListener {

	private final PerUserTools owner;

	private final McpStdioServer instance;

	private final Client client;

	/** The callbacks of its tools, by name. */
	private final Map<String, ToolCallback> callbacks = new ConcurrentHashMap<>();

	private volatile boolean listed;

	private volatile boolean closed;

	/**
	 * Create the client of an instance.
	 * @param owner the tools of its per-user server
	 * @param instance the instance
	 * @param clients makes the client, handing it what takes the tools it announces
	 */
	InstanceClient(PerUserTools owner, McpStdioServer instance,
			BiFunction<McpStdioServer, Consumer<List<Tool>>, Client> clients) {
		this.owner = owner;
		this.instance = instance;
		this.client = clients.apply(instance, this::announced);
		instance.addListener(this);
	}

	private void announced(List<Tool> tools) {
		this.owner.take(this.client, tools);
	}

	/** Initialize the client and list its tools, once. */
	synchronized void list() {
		if (this.listed && !this.owner.isStale()) {
			return;
		}
		checkOpen();
		this.owner.take(this.client, this.client.tools().get());
		this.listed = true;
	}

	ToolCallback callback(Tool tool, String name) {
		return this.callbacks.computeIfAbsent(name,
				(key) -> new ExitTellingToolCallback(this.client.callback().apply(tool, key), this.instance.name()));
	}

	/**
	 * Whether the instance is gone or being stopped for good: a failure of its client
	 * then says so.
	 */
	boolean isClosed() {
		ServerState state = this.instance.state();
		return this.closed || this.instance.isClosed() || state == ServerState.STOPPING || state == ServerState.STOPPED;
	}

	void checkOpen() {
		if (isClosed()) {
			throw stopped(null);
		}
	}

	McpServerNotRunningException stopped(@Nullable Throwable failure) {
		String why = (failure != null) ? " ("
				+ this.instance.definition().spec().sanitize(String.valueOf(ToolAbsences.messageOf(failure))) + ")"
				: "";
		return new McpServerNotRunningException(this.instance.name(),
				McpStdioException.describe(this.instance.name())
						+ ": the calling user's instance was stopped (the server was stopped or reloaded) before it "
						+ "answered" + why + "; a new call starts a new instance");
	}

	void close() {
		this.closed = true;
		this.client.close().run();
	}

	@Override
	public void closed(McpStdioServer server) {
		this.owner.forget(server);
	}

}

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

package dev.mcpstdio.lifecycle;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * Every configured MCP server of the application, by name, started in parallel.
 *
 * @author mcp-stdio authors
 */
public class McpStdioServers implements SmartLifecycle {

	private final Map<String, McpStdioServer> servers = new LinkedHashMap<>();

	private volatile boolean running;

	public McpStdioServers(List<McpStdioServer> servers) {
		for (McpStdioServer server : servers) {
			this.servers.put(server.name(), server);
		}
	}

	/**
	 * Return every server, in configuration order.
	 * @return the servers
	 */
	public List<McpStdioServer> list() {
		return List.copyOf(this.servers.values());
	}

	/**
	 * Find a server by name.
	 * @param name the name
	 * @return the server or {@code null}
	 */
	public @Nullable McpStdioServer find(String name) {
		return this.servers.get(name);
	}

	/**
	 * Get a server by name.
	 * @param name the name
	 * @return the server
	 * @throws NoSuchElementException if there is none of that name
	 */
	public McpStdioServer get(String name) {
		McpStdioServer server = this.servers.get(name);
		if (server == null) {
			throw new NoSuchElementException(
					"No MCP server named '" + name + "'; configured: " + this.servers.keySet());
		}
		return server;
	}

	/**
	 * Begin the start of every enabled server at once, in the background; each server's
	 * own {@link McpStdioServer#start()} then awaits its own. Calling it again joins the
	 * starts under way.
	 */
	public void startAllInBackground() {
		for (McpStdioServer server : this.servers.values()) {
			if (server.definition().enabled()) {
				server.startInBackground();
			}
		}
	}

	@Override
	public void start() {
		this.running = true;
		startAllInBackground();
	}

	@Override
	public void stop() {
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return McpStdioServer.PHASE - 1;
	}

}

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

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * Every MCP server of the application, by name, started in parallel and changed by
 * reloads.
 *
 * @author mcp-stdio authors
 */
public class McpStdioServers implements SmartLifecycle {

	private final Map<String, McpStdioServer> servers = new LinkedHashMap<>();

	private final List<Listener> listeners = new CopyOnWriteArrayList<>();

	private volatile @Nullable Reload lastReload;

	private volatile Supplier<@Nullable Reload> reloader = () -> null;

	private volatile boolean running;

	public McpStdioServers(List<McpStdioServer> servers) {
		servers.forEach((server) -> this.servers.put(server.name(), server));
	}

	/**
	 * Return every server, in the order they were configured or added.
	 * @return the servers
	 */
	public synchronized List<McpStdioServer> list() {
		return List.copyOf(this.servers.values());
	}

	/**
	 * Find a server by name.
	 * @param name the name
	 * @return the server or {@code null}
	 */
	public synchronized @Nullable McpStdioServer find(String name) {
		return this.servers.get(name);
	}

	/**
	 * Get a server by name.
	 * @param name the name
	 * @return the server
	 * @throws NoSuchElementException if there is none of that name
	 */
	public McpStdioServer get(String name) {
		McpStdioServer server = find(name);
		if (server == null) {
			throw new NoSuchElementException("No MCP server named '" + name + "'; configured: "
					+ list().stream().map(McpStdioServer::name).toList());
		}
		return server;
	}

	/**
	 * Let a listener learn of the servers added and removed from now on.
	 * @param listener the listener
	 */
	public void addListener(Listener listener) {
		this.listeners.add(listener);
	}

	/**
	 * Add a server, or replace the one of its name, and tell the listeners.
	 * @param server the server, not started yet
	 */
	public void add(McpStdioServer server) {
		synchronized (this) {
			this.servers.put(server.name(), server);
		}
		this.listeners.forEach((listener) -> listener.added(server));
	}

	/**
	 * Forget a server, stopped already, and tell the listeners.
	 * @param server the server
	 */
	public void remove(McpStdioServer server) {
		synchronized (this) {
			if (!this.servers.remove(server.name(), server)) {
				return;
			}
		}
		this.listeners.forEach((listener) -> listener.removed(server));
	}

	/**
	 * Record how a reload of the server set went and tell the listeners.
	 * @param reload the reload
	 */
	public void reloaded(Reload reload) {
		this.lastReload = reload;
		this.listeners.forEach((listener) -> listener.reloaded(reload));
	}

	/**
	 * Set what rebuilds the server set from the configuration, for {@link #reload()}.
	 * @param reloader reloads, returning how it went, or {@code null} when nothing was
	 * done (the application is stopping)
	 */
	public void setReloader(Supplier<@Nullable Reload> reloader) {
		this.reloader = reloader;
	}

	/**
	 * Rebuild the server set from the configuration now: servers added, removed and
	 * changed by name, unchanged ones untouched.
	 * @return how it went, or {@code null} when nothing can be reloaded or the
	 * application is stopping
	 */
	public @Nullable Reload reload() {
		return this.reloader.get();
	}

	/**
	 * Return how the last reload went.
	 * @return the reload, or {@code null} before the first
	 */
	public @Nullable Reload lastReload() {
		return this.lastReload;
	}

	/**
	 * Begin the start of every enabled server at once, in the background; each server's
	 * own {@link McpStdioServer#start()} then awaits its own. Calling it again joins the
	 * starts under way.
	 */
	public void startAllInBackground() {
		list().stream().filter((server) -> server.definition().enabled()).forEach(McpStdioServer::startInBackground);
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
		// one phase before the servers: every start begins before any server awaits its
		// own
		return McpStdioServer.PHASE - 1;
	}

	/** Learns of the servers added, removed and reloaded. */
	public interface Listener {

		default void added(McpStdioServer server) {
		}

		default void removed(McpStdioServer server) {
		}

		default void reloaded(Reload reload) {
		}

	}

	/**
	 * How one reload of the server set went.
	 *
	 * @param at when it was applied or rejected
	 * @param outcome what came of it
	 * @param added the servers added
	 * @param removed the servers removed
	 * @param changed the servers stopped and started with new settings
	 * @param problem why it was rejected, or {@code null}
	 */
	public record Reload(Instant at, Outcome outcome, List<String> added, List<String> removed, List<String> changed,
			@Nullable String problem) {

	}

	/** What came of a reload. */
	public enum Outcome {

		/** The new set differed and was applied. */
		APPLIED,

		/** The new set was invalid: nothing changed. */
		REJECTED,

		/** The new set was the same: nothing changed. */
		UNCHANGED

	}

}

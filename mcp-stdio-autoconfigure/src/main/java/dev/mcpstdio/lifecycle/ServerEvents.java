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

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;

import dev.mcpstdio.core.server.ExitCause;
import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.core.server.StdioServerProcess.StopResult;
import org.jspecify.annotations.Nullable;

/**
 * What one server went through: its listeners told, its exits and restarts counted.
 *
 * @author mcp-stdio authors
 */
final class ServerEvents {

	private final List<Bound> listeners = new CopyOnWriteArrayList<>();

	/** Told of each change of the state before the listeners: the usage supervisor. */
	private final List<Consumer<ServerState>> watchers = new CopyOnWriteArrayList<>();

	/** By the ordinal of their cause. */
	private final AtomicLongArray exits = new AtomicLongArray(ExitCause.values().length);

	private final AtomicLong restarts = new AtomicLong();

	private volatile @Nullable ExitInfo lastExit;

	/** Where an instance of a per-user server counts too: its template's events. */
	private final @Nullable ServerEvents parent;

	ServerEvents(@Nullable ServerEvents parent) {
		this.parent = parent;
	}

	void addListener(ServerListener listener, McpStdioServer server) {
		this.listeners.add(new Bound(listener, server));
	}

	/**
	 * Tell a collaborator of the server (not a listener: it is not let go when the server
	 * closes) of each change of the state, under the state machine's lock.
	 * @param watcher what learns of the state: it schedules or cancels, never waits
	 */
	void watchStates(Consumer<ServerState> watcher) {
		this.watchers.add(watcher);
	}

	void stateChanged(ServerState state) {
		this.watchers.forEach((watcher) -> watcher.accept(state));
		this.listeners.forEach((bound) -> bound.listener().stateChanged(bound.server(), state));
	}

	/**
	 * Tell the listeners of a stop, when it stopped a process that was running.
	 * @param result how the stop went
	 */
	void stopped(StopResult result) {
		if (this.parent != null) {
			this.parent.stopped(result);
		}
		if (result.wasRunning()) {
			this.listeners.forEach((bound) -> bound.listener().stopped(bound.server(), result));
		}
	}

	/** Tell the listeners that the server is stopped for good, then forget them. */
	void closed() {
		List<Bound> told = List.copyOf(this.listeners);
		this.listeners.clear();
		told.forEach((bound) -> bound.listener().closed(bound.server()));
	}

	/** Count a restart and tell the listeners, before it begins. */
	void restarted() {
		if (this.parent != null) {
			this.parent.restarted();
		}
		this.restarts.incrementAndGet();
		this.listeners.forEach((bound) -> bound.listener().restarted(bound.server()));
	}

	/**
	 * Count an exit and keep it as the last one.
	 * @param exit the exit
	 */
	void exited(ExitInfo exit) {
		if (this.parent != null) {
			this.parent.exited(exit);
		}
		this.exits.incrementAndGet(exit.cause().ordinal());
		this.lastExit = exit;
	}

	long restarts() {
		return this.restarts.get();
	}

	long exits(ExitCause cause) {
		return this.exits.get(cause.ordinal());
	}

	@Nullable ExitInfo lastExit() {
		return this.lastExit;
	}

	private record Bound(ServerListener listener, McpStdioServer server) {

	}

}

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

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.core.support.Waits;
import org.jspecify.annotations.Nullable;

/**
 * The starts of one server: the one under way that every caller joins, the lifecycle's,
 * and the stops that a start must not outlive; each start run by {@link StartAttempts}.
 * Guarded by its state machine's lock; every change of the state is the state machine's.
 *
 * @author mcp-stdio authors
 */
final class ServerStarts {

	// Starts: the lifecycle's (begun for every server at once), a client's, an
	// operator's, a message's to a server started on demand. At most one is under way;
	// every caller joins it, bounded.

	private final ServerController controller;

	private final McpStdioServerDefinition definition;

	private final ServerHost host;

	private final Object lock;

	private final StartAttempts attempts;

	/** Whether the server was stopped for good: its bean is destroyed. */
	private boolean closed;

	/** Counts the stops, so that a start begun before a stop does not outlive it. */
	private long stops;

	private volatile @Nullable CompletableFuture<Void> starting;

	/** The start that {@link McpStdioServers} began for the lifecycle's own start. */
	private volatile @Nullable CompletableFuture<Void> lifecycleStart;

	/**
	 * Create the starts of a server.
	 * @param controller its state machine
	 * @param definition the server
	 * @param host where its processes start
	 * @param lock the state machine's lock
	 */
	ServerStarts(ServerController controller, McpStdioServerDefinition definition, ServerHost host, Object lock) {
		this.controller = controller;
		this.definition = definition;
		this.host = host;
		this.lock = lock;
		this.attempts = new StartAttempts(controller, definition, host, this, lock);
	}

	private String name() {
		return this.definition.name();
	}

	/**
	 * Join the start for a client that connects: await the start the lifecycle began,
	 * else start now. Never a second process for a start that was begun: when it has
	 * ended, the client's messages fail naming its exit until a restart runs a new one.
	 */
	void joinStart() {
		CompletableFuture<Void> begun = this.lifecycleStart;
		if (begun != null) {
			awaitStart(begun);
			return;
		}
		startServer();
	}

	/**
	 * Start the server now and wait until it runs (and is initialized when it performs
	 * the handshake itself); join a start under way.
	 */
	void startServer() {
		if (!this.definition.enabled()) {
			throw new McpServerNotRunningException(name(), McpStdioException.describe(name()) + " is disabled");
		}
		awaitStart(beginStart());
	}

	/**
	 * Await the start {@link McpStdioServers} began for all servers at once (starting
	 * anew would run a server that failed fast a second time), for the lifecycle's start.
	 * @throws RuntimeException why it failed; for a required server whose client performs
	 * the handshake, also when its process already ended
	 */
	void awaitLifecycleStart() {
		awaitStart(startInBackground());
		if (!this.controller.terms().selfInitialize() && this.definition.required()) {
			// A client performs the handshake later: at least the process must live
			StdioServerProcess current = this.controller.status().process();
			ExitInfo exit = (current != null) ? current.exitInfo() : null;
			if (exit != null) {
				throw exit.toException();
			}
		}
	}

	/**
	 * Begin the lifecycle's start in the background, once per lifecycle start.
	 * @return the start under way
	 */
	CompletableFuture<Void> startInBackground() {
		synchronized (this.lock) {
			CompletableFuture<Void> begun = this.lifecycleStart;
			if (begun == null) {
				boolean lazy = this.definition.demand().start() == StartMode.LAZY;
				if (lazy) {
					// No process until the first message (unless a client started it)
					this.controller.idleUntilFirstMessage();
				}
				begun = lazy ? CompletableFuture.completedFuture(null) : beginStart();
				this.lifecycleStart = begun;
			}
			return begun;
		}
	}

	/**
	 * Start the server if it is {@link ServerState#IDLE}, or join its start under way; in
	 * any other state do nothing: a stopped server stays stopped.
	 */
	void startIfIdle() {
		CompletableFuture<Void> future;
		synchronized (this.lock) {
			CompletableFuture<Void> inProgress = this.starting;
			if (this.controller.status().state() == ServerState.IDLE) {
				future = beginStart();
			}
			else if (inProgress != null && !inProgress.isDone()) {
				// A message must not overtake the handshake of the process it goes to
				future = inProgress;
			}
			else {
				return;
			}
		}
		awaitStart(future);
	}

	private CompletableFuture<Void> beginStart() {
		synchronized (this.lock) {
			if (this.closed) {
				// a start racing the removal of the server (a reload) must not leave a
				// process that nothing stops
				return CompletableFuture
					.failedFuture(new McpServerNotRunningException(name(), McpStdioException.describe(name())
							+ " was removed (by a reload, or its application context closed)"));
			}
			CompletableFuture<Void> inProgress = this.starting;
			if (inProgress != null && !inProgress.isDone()) {
				return inProgress;
			}
			StdioServerProcess current = this.controller.status().process();
			if (current != null && current.isRunning() && this.controller.status().state() == ServerState.RUNNING) {
				return CompletableFuture.completedFuture(null);
			}
			long stopsSeen = this.stops;
			CompletableFuture<Void> future = CompletableFuture.runAsync(() -> this.attempts.run(false, stopsSeen),
					this.host.tasks());
			this.starting = future;
			return future;
		}
	}

	/**
	 * Wait for a start, bounded by {@code startup-timeout} plus the worst case of the
	 * stop of the previous process that a start may first have to make.
	 * @param future the start
	 */
	private void awaitStart(CompletableFuture<Void> future) {
		Duration bound = this.definition.spec().startupTimeout().plus(this.definition.spec().shutdown().worstCase());
		Waits.await(future, bound, name(), "start");
	}

	/**
	 * A stop came: a start begun before it does not outlive it, and a later lifecycle
	 * start begins afresh. Called with the lock held.
	 * @param lifecycleStart what a later lifecycle start joins: {@code null} to begin
	 * afresh, a start done to run no process
	 */
	void stopped(@Nullable CompletableFuture<Void> lifecycleStart) {
		this.stops++;
		this.starting = null;
		this.lifecycleStart = lifecycleStart;
	}

	/**
	 * Return the stops so far: a start begun now must not outlive the next one. Called
	 * with the lock held.
	 * @return how many stops came
	 */
	long stops() {
		return this.stops;
	}

	/** Run a restart after its backoff: see {@link StartAttempts#restart()}. */
	void restart() {
		this.attempts.restart();
	}

	/** The server is stopped for good: no start follows, whoever asks. */
	void close() {
		synchronized (this.lock) {
			this.closed = true;
		}
	}

}

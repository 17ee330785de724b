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
import java.util.concurrent.Executor;

import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.StdioServerProcess;
import dev.mcpstdio.core.support.Futures;
import org.jspecify.annotations.Nullable;

/**
 * Who starts one server and who waits for it: the lifecycle's start (begun for every
 * server at once), a client that joins it, an operator, a message to a server started on
 * demand. At most one start is under way; every caller joins it, bounded. The transitions
 * themselves stay with the state machine ({@link Machine}) and its lock.
 *
 * @author mcp-stdio authors
 */
final class ServerStarter {

	private final Object lock;

	private final McpStdioServerDefinition definition;

	private final Executor tasks;

	private final Machine machine;

	private volatile @Nullable CompletableFuture<Void> starting;

	/** The start that {@link McpStdioServers} began for the lifecycle's own start. */
	private volatile @Nullable CompletableFuture<Void> lifecycleStart;

	/**
	 * Create the starts of a server.
	 * @param lock the state machine's lock, held while a start is begun
	 * @param definition the server
	 * @param tasks runs the starts
	 * @param machine the state machine
	 */
	ServerStarter(Object lock, McpStdioServerDefinition definition, Executor tasks, Machine machine) {
		this.lock = lock;
		this.definition = definition;
		this.tasks = tasks;
		this.machine = machine;
	}

	private String name() {
		return this.definition.name();
	}

	/**
	 * Join the start of the server for a client that connects: await the start the
	 * lifecycle began, else start it now. Never a second process for a start that was
	 * begun: when that process has ended, the client's messages fail naming its exit
	 * until a restart (by the policy or an operator) runs a new one.
	 * @throws McpServerNotRunningException if the server is disabled or a stop came first
	 * @throws McpStdioException if the start the lifecycle began failed
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
	 * Start the server now and wait until it runs (and, when it performs the handshake
	 * itself, until it is initialized). Does nothing when it already runs; joins a start
	 * under way. Operators (the endpoint) and clients that connect call this.
	 * @throws McpServerNotRunningException if the server is disabled or a stop came first
	 * @throws McpStdioException if it could not start
	 */
	void startServer() {
		if (!this.definition.enabled()) {
			throw new McpServerNotRunningException(name(), "MCP server '" + name() + "' is disabled");
		}
		awaitStart(beginStart());
	}

	/**
	 * Begin the lifecycle's start in the background, once per lifecycle start, so that
	 * {@link McpStdioServers} starts every server in parallel before each one's
	 * {@link McpStdioServer#start()} awaits its own.
	 * @return the start under way
	 */
	CompletableFuture<Void> startInBackground() {
		synchronized (this.lock) {
			CompletableFuture<Void> begun = this.lifecycleStart;
			if (begun == null) {
				if (this.definition.demand().start() == StartMode.LAZY) {
					// No process until the first message (unless a client started it)
					this.machine.idleIfStopped();
					begun = CompletableFuture.completedFuture(null);
				}
				else {
					begun = beginStart();
				}
				this.lifecycleStart = begun;
			}
			return begun;
		}
	}

	/**
	 * Start the server if it is {@link ServerState#IDLE}, or join its start under way,
	 * and wait until it runs (and, when it performs the handshake itself, until it is
	 * initialized). Does nothing in any other state: a stopped server stays stopped.
	 * @throws McpStdioException if it could not start
	 */
	void startOnDemand() {
		CompletableFuture<Void> future;
		synchronized (this.lock) {
			CompletableFuture<Void> inProgress = this.starting;
			if (this.machine.state() == ServerState.IDLE) {
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

	/**
	 * Start the server in the background, unless it runs or is starting already.
	 * @return the future of the start
	 */
	private CompletableFuture<Void> beginStart() {
		synchronized (this.lock) {
			CompletableFuture<Void> inProgress = this.starting;
			if (inProgress != null && !inProgress.isDone()) {
				return inProgress;
			}
			if (this.machine.isRunning()) {
				return CompletableFuture.completedFuture(null);
			}
			CompletableFuture<Void> future = new CompletableFuture<>();
			this.starting = future;
			long stopsSeen = this.machine.stops();
			this.tasks.execute(() -> {
				try {
					this.machine.startProcess(false, stopsSeen);
					future.complete(null);
				}
				catch (Throwable ex) {
					future.completeExceptionally(ex);
				}
			});
			return future;
		}
	}

	/**
	 * Wait for a start, bounded by {@code startup-timeout} plus the worst case of the
	 * stop of the previous process that a start may first have to make.
	 * @param future the start
	 */
	void awaitStart(CompletableFuture<Void> future) {
		// A start may first have to stop the previous process
		Duration bound = this.definition.startupTimeout().plus(this.definition.spec().shutdown().worstCase());
		Futures.await(future, bound, name(), "start");
	}

	/**
	 * Forget the starts begun: a later lifecycle start begins afresh. Called with the
	 * lock held, by a stop.
	 */
	void forget() {
		this.starting = null;
		this.lifecycleStart = null;
	}

	/**
	 * Remember that a client gave the server up: the lifecycle's start, when it has not
	 * begun yet, runs no process. Called with the lock held.
	 */
	void givenUp() {
		if (this.lifecycleStart == null) {
			this.lifecycleStart = CompletableFuture.completedFuture(null);
		}
	}

	/** What a start needs of the state machine. */
	interface Machine {

		/**
		 * Return the server's state. Called with the lock held.
		 * @return the state
		 */
		ServerState state();

		/**
		 * Return whether a process runs and the server is {@link ServerState#RUNNING}.
		 * Called with the lock held.
		 * @return whether there is nothing to start
		 */
		boolean isRunning();

		/**
		 * Make a stopped server {@link ServerState#IDLE}: started on demand. Called with
		 * the lock held.
		 */
		void idleIfStopped();

		/**
		 * Return how many stops there were, so that a start begun before a stop does not
		 * outlive it. Called with the lock held.
		 * @return the count of stops
		 */
		long stops();

		/**
		 * Start a process, unless one runs: called without the lock.
		 * @param byPolicy whether it is a restart by the policy
		 * @param stopsSeen {@link #stops()} when the start was begun
		 * @return the process
		 */
		StdioServerProcess startProcess(boolean byPolicy, long stopsSeen);

	}

}

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
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import dev.mcpstdio.McpServerExitedException;
import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.ExitCause;
import dev.mcpstdio.core.ExitInfo;
import dev.mcpstdio.core.Futures;
import dev.mcpstdio.core.McpHandshake;
import dev.mcpstdio.core.MessageListener;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.StdioServerProcess;
import dev.mcpstdio.core.StopResult;
import dev.mcpstdio.lifecycle.McpStdioServer.Listener;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The state machine of one server: starts (joining one under way), stops that win over
 * starts begun before them, process exits and the restarts its policy asks for, each
 * generation of the process replacing the previous one only once that one is gone. All
 * state changes happen under one lock; no process is stopped while the lock is held, so a
 * stop never waits behind a start.
 * <p>
 * Why this class is longer than the others: every transition of the server's state is
 * here, under its one lock, so that the races between start, stop, exit and restart can
 * be read in one place. The restart policy is in {@link RestartSupervisor}, the handshake
 * in {@link McpHandshake}, the Spring lifecycle in {@link McpStdioServer}.
 *
 * @author mcp-stdio authors
 */
final class ServerController {

	private static final Log logger = LogFactory.getLog(ServerController.class);

	private final McpStdioServer server;

	private final McpStdioServerDefinition definition;

	private final ServerHost host;

	private final MessageListener session;

	private final RestartSupervisor restartSupervisor;

	private final Object lock = new Object();

	private final List<Listener> listeners = new CopyOnWriteArrayList<>();

	private final Map<ExitCause, AtomicLong> exits = new EnumMap<>(ExitCause.class);

	private final AtomicLong restarts = new AtomicLong();

	private volatile ServerState state;

	private volatile @Nullable StdioServerProcess process;

	private volatile long generation;

	private volatile @Nullable CompletableFuture<Void> starting;

	private volatile boolean initialized;

	private volatile boolean selfInitialize = true;

	private volatile boolean wantRunning;

	/** The process whose stop was begun and reported. */
	private @Nullable StdioServerProcess stopClaimed;

	/** Counts the stops, so that a start begun before a stop does not outlive it. */
	private long stops;

	/** The start that {@link McpStdioServers} began for the lifecycle's own start. */
	private volatile @Nullable CompletableFuture<Void> lifecycleStart;

	private volatile @Nullable ExitInfo lastExit;

	private volatile @Nullable String lastFailure;

	private volatile @Nullable Duration clientRequestTimeout;

	/**
	 * Create the state machine of a server.
	 * @param server the server, as listeners learn of it
	 * @param host what it shares with the other servers
	 * @param session receives the messages and the end of every process
	 */
	ServerController(McpStdioServer server, ServerHost host, MessageListener session) {
		this.server = server;
		this.definition = server.definition();
		this.host = host;
		this.session = session;
		this.restartSupervisor = new RestartSupervisor(this.definition.name(), this.definition.restart(),
				host.scheduler(), System::nanoTime);
		this.state = this.definition.enabled() ? ServerState.STOPPED : ServerState.DISABLED;
		for (ExitCause cause : ExitCause.values()) {
			this.exits.put(cause, new AtomicLong());
		}
	}

	private String name() {
		return this.definition.name();
	}

	ServerState state() {
		return this.state;
	}

	boolean isInitialized() {
		return this.initialized && this.state == ServerState.RUNNING;
	}

	void markInitialized() {
		this.initialized = true;
	}

	boolean isSelfInitialize() {
		return this.selfInitialize;
	}

	void setSelfInitialize(boolean selfInitialize) {
		this.selfInitialize = selfInitialize;
	}

	@Nullable StdioServerProcess process() {
		return this.process;
	}

	long generation() {
		return this.generation;
	}

	long restarts() {
		return this.restarts.get();
	}

	long exits(ExitCause cause) {
		return this.exits.get(cause).get();
	}

	@Nullable ExitInfo lastExit() {
		return this.lastExit;
	}

	@Nullable String lastFailure() {
		return this.lastFailure;
	}

	void setClientRequestTimeout(Duration timeout) {
		this.clientRequestTimeout = timeout;
		StdioServerProcess current = this.process;
		if (current != null) {
			current.setClientRequestTimeout(timeout);
		}
	}

	void addListener(Listener listener) {
		this.listeners.add(listener);
	}

	/**
	 * Return the process a message goes to.
	 * @return the current process
	 * @throws McpServerNotRunningException if the server is stopping, stopped or disabled
	 */
	StdioServerProcess currentForSend() {
		StdioServerProcess current = this.process;
		ServerState currentState = this.state;
		if (current == null || currentState == ServerState.STOPPED || currentState == ServerState.STOPPING
				|| currentState == ServerState.DISABLED) {
			throw new McpServerNotRunningException(name(),
					"MCP server '" + name() + "' is " + currentState.name().toLowerCase() + "; start it first");
		}
		return current;
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
				begun = beginStart();
				this.lifecycleStart = begun;
			}
			return begun;
		}
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
			StdioServerProcess current = this.process;
			if (current != null && current.isRunning() && this.state == ServerState.RUNNING) {
				return CompletableFuture.completedFuture(null);
			}
			CompletableFuture<Void> future = new CompletableFuture<>();
			this.starting = future;
			long stopsSeen = this.stops;
			this.host.tasks().execute(() -> {
				try {
					startProcess(false, stopsSeen);
					future.complete(null);
				}
				catch (Throwable ex) {
					future.completeExceptionally(ex);
				}
			});
			return future;
		}
	}

	void awaitStart(CompletableFuture<Void> future) {
		// A start may first have to stop the previous process
		Duration bound = this.definition.startupTimeout().plus(this.definition.spec().shutdown().worstCase());
		Futures.await(future, bound, name(), "start");
	}

	private StdioServerProcess startProcess(boolean byPolicy, long stopsSeen) {
		StdioServerProcess previous;
		synchronized (this.lock) {
			StdioServerProcess current = this.process;
			if (current != null && current.isRunning()) {
				return current;
			}
			checkNoStopSince(stopsSeen);
			this.restartSupervisor.cancel();
			previous = current;
		}
		if (previous != null) {
			// The previous generation must be gone, all of it, before the next starts;
			// not under the lock, so that a stop never waits behind this start
			previous.stop();
		}
		StdioServerProcess started;
		long startedGeneration;
		synchronized (this.lock) {
			checkNoStopSince(stopsSeen);
			StdioServerProcess current = this.process;
			if (current != previous && current != null && current.isRunning()) {
				return current;
			}
			this.wantRunning = true;
			this.initialized = false;
			this.lastFailure = null;
			startedGeneration = ++this.generation;
			setState(ServerState.STARTING);
			try {
				started = this.host.start(this.definition.spec(), new Dispatcher(startedGeneration));
			}
			catch (RuntimeException ex) {
				this.lastFailure = ex.getMessage();
				this.wantRunning = false;
				setState(ServerState.FAILED);
				throw ex;
			}
			this.process = started;
			Duration timeout = this.clientRequestTimeout;
			if (timeout != null) {
				started.setClientRequestTimeout(timeout);
			}
			if (started.exitInfo() == null) {
				setState(ServerState.RUNNING);
			}
		}
		if (this.selfInitialize) {
			handshake(started, byPolicy, startedGeneration, stopsSeen);
		}
		return started;
	}

	private void checkNoStopSince(long stopsSeen) {
		if (this.stops != stopsSeen) {
			// A stop (or the context's destruction) came while this start waited: it
			// wins, else the process started now would be left behind
			throw new McpServerNotRunningException(name(),
					"MCP server '" + name() + "' was stopped before it could start");
		}
	}

	private void handshake(StdioServerProcess started, boolean byPolicy, long startedGeneration, long stopsSeen) {
		try {
			McpHandshake.perform(started, this.definition.startupTimeout());
			this.initialized = true;
		}
		catch (RuntimeException ex) {
			boolean exited = ex instanceof McpServerExitedException;
			synchronized (this.lock) {
				this.lastFailure = ex.getMessage();
				if (byPolicy && !exited && this.generation == startedGeneration) {
					// the stop below is this attempt's failure, not a reason of its own
					setState(ServerState.STOPPING);
				}
			}
			if (!exited) {
				started.stop();
			}
			synchronized (this.lock) {
				// A handshake cut short by a stop is no failure of the server
				if (this.generation == startedGeneration && this.stops == stopsSeen) {
					if (!byPolicy) {
						this.wantRunning = false;
						setState(ServerState.FAILED);
					}
					else if (!exited && this.wantRunning && this.state == ServerState.STOPPING) {
						// A failed restart counts against the policy like any other end;
						// one whose process exited is handled by its exit
						scheduleRestart();
					}
				}
			}
			throw ex;
		}
	}

	/**
	 * Stop the server: the contract's four bounded steps. No restart follows.
	 * @return how the stop went, or {@code null} when nothing was running
	 */
	@Nullable StopResult stopServer() {
		StdioServerProcess current;
		boolean first;
		synchronized (this.lock) {
			this.stops++;
			this.wantRunning = false;
			this.restartSupervisor.cancel();
			// A later lifecycle start begins afresh
			this.starting = null;
			this.lifecycleStart = null;
			current = this.process;
			if (current == null) {
				return null;
			}
			// The lifecycle's stop and destroy() both come here (and overlap when the
			// phase timed out): the process is stopped and reported once
			first = this.stopClaimed != current;
			this.stopClaimed = current;
			if (first && this.state != ServerState.DISABLED) {
				setState(ServerState.STOPPING);
			}
		}
		StopResult result = current.stop();
		if (!first) {
			return result;
		}
		synchronized (this.lock) {
			if (this.process == current && this.state == ServerState.STOPPING) {
				setState(ServerState.STOPPED);
			}
			this.initialized = false;
		}
		if (result.wasRunning()) {
			for (Listener listener : this.listeners) {
				listener.stopped(this.server, result);
			}
		}
		return result;
	}

	/**
	 * Stop the server and start it again, counted as a restart.
	 */
	void restartServer() {
		stopServer();
		this.restarts.incrementAndGet();
		for (Listener listener : this.listeners) {
			listener.restarted(this.server);
		}
		startServer();
	}

	private void setState(ServerState newState) {
		ServerState old = this.state;
		this.state = newState;
		if (old != newState) {
			for (Listener listener : this.listeners) {
				listener.stateChanged(this.server, newState);
			}
		}
	}

	private void exited(long exitedGeneration, ExitInfo exit) {
		synchronized (this.lock) {
			this.exits.get(exit.cause()).incrementAndGet();
			this.lastExit = exit;
			if (exitedGeneration != this.generation) {
				return;
			}
			this.initialized = false;
			if (this.state == ServerState.STOPPING || this.state == ServerState.STOPPED || !this.wantRunning) {
				return;
			}
			if (this.restartSupervisor.policy().shouldRestart(exit)) {
				scheduleRestart();
			}
			else {
				this.wantRunning = false;
				setState(ServerState.FAILED);
			}
		}
	}

	/** Called with the lock held. */
	private void scheduleRestart() {
		Duration backoff = this.restartSupervisor.nextBackoff();
		if (backoff == null) {
			this.wantRunning = false;
			setState(ServerState.FAILED);
			return;
		}
		// Listeners learn of the restart before its backoff starts to run
		setState(ServerState.RESTARTING);
		// The scheduler's one thread must not block: the restart runs among the tasks
		this.restartSupervisor.schedule(() -> this.host.tasks().execute(this::restartByPolicy), backoff);
	}

	private void restartByPolicy() {
		long stopsSeen;
		synchronized (this.lock) {
			if (!this.wantRunning || this.state != ServerState.RESTARTING) {
				return;
			}
			stopsSeen = this.stops;
		}
		this.restarts.incrementAndGet();
		for (Listener listener : this.listeners) {
			listener.restarted(this.server);
		}
		try {
			startProcess(true, stopsSeen);
		}
		catch (RuntimeException ex) {
			logger.warn("Restart of MCP server '" + name() + "' failed: " + ex.getMessage());
		}
	}

	/** Routes the messages and the end of one generation's process. */
	private final class Dispatcher implements MessageListener {

		private final long generation;

		Dispatcher(long generation) {
			this.generation = generation;
		}

		@Override
		public void onMessage(String message) {
			ServerController.this.session.onMessage(message);
		}

		@Override
		public void onExit(ExitInfo exit, List<Object> unansweredRequestIds) {
			exited(this.generation, exit);
			ServerController.this.session.onExit(exit, new ArrayList<>(unansweredRequestIds));
		}

	}

}

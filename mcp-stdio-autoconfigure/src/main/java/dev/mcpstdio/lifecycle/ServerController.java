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
import java.util.concurrent.TimeUnit;
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

	/** When a send stops waiting for the restart scheduled last: backoff plus start. */
	private long restartDeadlineNanos;

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
		this.state = !this.definition.enabled() ? ServerState.DISABLED
				: isLazy() ? ServerState.IDLE : ServerState.STOPPED;
		for (ExitCause cause : ExitCause.values()) {
			this.exits.put(cause, new AtomicLong());
		}
	}

	private String name() {
		return this.definition.name();
	}

	private boolean isLazy() {
		return this.definition.demand().start() == StartMode.LAZY;
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
	 * Return the process a message goes to. While the server is between processes (a
	 * restart pending or under way) this waits for the new one, bounded by
	 * {@link #awaitSettled()}.
	 * @return the current process
	 * @throws McpServerNotRunningException if the server is stopping, stopped or disabled
	 */
	StdioServerProcess currentForSend() {
		awaitSettled();
		StdioServerProcess current = this.process;
		ServerState currentState = this.state;
		if (current == null || currentState == ServerState.STOPPED || currentState == ServerState.STOPPING
				|| currentState == ServerState.DISABLED || currentState == ServerState.IDLE) {
			throw new McpServerNotRunningException(name(),
					"MCP server '" + name() + "' is " + currentState.name().toLowerCase() + "; start it first");
		}
		return current;
	}

	/**
	 * Wait while the server is between processes (a restart pending or under way, a
	 * start, or its own handshake) until it runs or reaches a state it will not leave by
	 * itself (FAILED when the policy gave up, STOPPED, ...). Bounded by the restart's
	 * backoff plus {@code startup-timeout}, or by {@code startup-timeout} for a start;
	 * returns at once when the server is settled.
	 */
	void awaitSettled() {
		synchronized (this.lock) {
			if (!isSettling()) {
				return;
			}
			long deadline = (this.state == ServerState.RESTARTING) ? this.restartDeadlineNanos
					: System.nanoTime() + this.definition.startupTimeout().toNanos();
			long remaining = deadline - System.nanoTime();
			while (isSettling() && remaining > 0) {
				try {
					TimeUnit.NANOSECONDS.timedWait(this.lock, remaining);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
				remaining = deadline - System.nanoTime();
			}
		}
	}

	/** Called with the lock held. */
	private boolean isSettling() {
		ServerState current = this.state;
		return current == ServerState.RESTARTING || current == ServerState.STARTING
				|| (current == ServerState.RUNNING && this.selfInitialize && !this.initialized);
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
	 * Give up on the server: stop what runs of it, cancel a pending restart, and leave it
	 * FAILED for the reason given. For a client that could not use it at start-up.
	 * @param reason why, as the endpoint shows it
	 */
	void giveUp(String reason) {
		synchronized (this.lock) {
			if (this.state == ServerState.FAILED) {
				this.lastFailure = reason;
				return;
			}
		}
		stopServer();
		synchronized (this.lock) {
			if (this.state == ServerState.STOPPED || this.state == ServerState.FAILED) {
				this.lastFailure = reason;
				setState(ServerState.FAILED);
			}
		}
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
				if (isLazy()) {
					// No process until the first message (unless a client started it)
					if (this.state == ServerState.STOPPED) {
						setState(ServerState.IDLE);
					}
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
			if (this.state == ServerState.IDLE) {
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
			if (current != null && current.isRunning() && current != this.stopClaimed) {
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
			synchronized (this.lock) {
				this.initialized = true;
				// sends wait for it: see awaitSettled()
				this.lock.notifyAll();
			}
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
			if (this.state == ServerState.IDLE) {
				// Its next message must not start it any more
				setState(ServerState.STOPPED);
			}
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
		notifyStopped(result);
		return result;
	}

	private void notifyStopped(StopResult result) {
		if (result.wasRunning()) {
			for (Listener listener : this.listeners) {
				listener.stopped(this.server, result);
			}
		}
	}

	/**
	 * Begin the stop of an idle server: it is {@link ServerState#IDLE} from now on (no
	 * health change; its next message starts it again), and its process is told why it is
	 * stopped. The caller makes sure that no message is being sent.
	 * @return the process to stop with {@link #stopClaimed(StdioServerProcess)}, or
	 * {@code null} when the server does not run, is not initialized yet or a request is
	 * pending
	 */
	@Nullable StdioServerProcess claimIdleStop() {
		synchronized (this.lock) {
			StdioServerProcess current = this.process;
			// Not while its own handshake is under way either
			if (this.state != ServerState.RUNNING || current == null || !current.isRunning()
					|| current.pendingRequests() > 0 || (this.selfInitialize && !this.initialized)
					|| !current.prepareStop(ExitCause.IDLE, null)) {
				return null;
			}
			this.stopClaimed = current;
			this.wantRunning = false;
			this.initialized = false;
			this.restartSupervisor.cancel();
			setState(ServerState.IDLE);
			return current;
		}
	}

	/**
	 * Stop a process claimed by {@link #claimIdleStop()}: the contract's four steps.
	 * @param claimed the process
	 */
	void stopClaimed(StdioServerProcess claimed) {
		notifyStopped(claimed.stop());
	}

	/**
	 * Stop a running process that went over a resource limit; its exit, with that cause,
	 * is then handled by the restart policy like any other failure.
	 * @param over the process
	 * @param cause {@link ExitCause#MEMORY_LIMIT} or {@link ExitCause#PROCESS_LIMIT}
	 * @param reason the figures, for the exit's message
	 */
	void stopOverLimit(StdioServerProcess over, ExitCause cause, String reason) {
		synchronized (this.lock) {
			if (this.process != over || this.state != ServerState.RUNNING || !over.prepareStop(cause, reason)) {
				return;
			}
		}
		notifyStopped(over.stop());
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

	/** Called with the lock held. */
	private void setState(ServerState newState) {
		ServerState old = this.state;
		this.state = newState;
		// sends waiting in awaitSettled() look again
		this.lock.notifyAll();
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
			if (this.state == ServerState.STOPPING || this.state == ServerState.STOPPED
					|| this.state == ServerState.IDLE || !this.wantRunning) {
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
		this.restartDeadlineNanos = System.nanoTime() + backoff.toNanos() + this.definition.startupTimeout().toNanos();
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

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
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

import dev.mcpstdio.McpServerExitedException;
import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.server.ExitCause;
import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.core.server.InFlightRequest;
import dev.mcpstdio.core.server.io.JsonRpcLine;
import dev.mcpstdio.core.server.MessageListener;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.core.server.StdioServerProcess.StopResult;
import dev.mcpstdio.core.tree.ProcessTree;
import dev.mcpstdio.core.support.Waits;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;

/**
 * The state machine of one server: its starts, stops, exits and restarts, under one lock.
 * Its processes' messages and ends go on to the server's client side
 * ({@link ServerConnection}), each end first told to the state machine.
 *
 * @author mcp-stdio authors
 */
final class ServerController implements UsageSupervisor.Supervised {

	// Each generation of the process replaces the previous one only once that one is
	// gone. No process is stopped while the lock is held, so a stop never waits behind a
	// start.

	private static final Log logger = LogFactory.getLog(ServerController.class);

	private final McpStdioServerDefinition definition;

	private final ServerHost host;

	/** Whose marked processes count as this server's: none for an instance. */
	private final @Nullable String marked;

	private final RestartBudget restarts;

	private final ServerEvents events;

	private final Object lock = new Object();

	private volatile ServerState state;

	private volatile @Nullable StdioServerProcess process;

	private volatile long generation;

	private volatile boolean initialized;

	private volatile boolean selfInitialize = true;

	private volatile boolean wantRunning;

	/** Where the processes' messages and ends go on to: the client side. */
	private final MessageListener client;

	/** Whether the server was stopped for good: its bean is destroyed. */
	private boolean closed;

	/** The process whose stop was begun and reported. */
	private @Nullable StdioServerProcess stopClaimed;

	/** Counts the stops, so that a start begun before a stop does not outlive it. */
	private long stops;

	private volatile @Nullable String lastFailure;

	private volatile @Nullable Duration clientRequestTimeout;

	private volatile @Nullable CompletableFuture<Void> starting;

	/** The start that {@link McpStdioServers} began for the lifecycle's own start. */
	private volatile @Nullable CompletableFuture<Void> lifecycleStart;

	/** The starts a send waits through, guarded by the lock. */
	private final StartTally starts = new StartTally(this.lock);

	/**
	 * Create the state machine of a server.
	 * @param definition the server
	 * @param host what it shares with the other servers
	 * @param template the per-user server this is an instance of, else {@code null}
	 * @param client where the processes' messages and ends go on to
	 */
	ServerController(McpStdioServerDefinition definition, ServerHost host, @Nullable ServerController template,
			MessageListener client) {
		this.definition = definition;
		this.host = host;
		this.client = client;
		// an instance counts its own tree: its processes carry the server's name as all
		// the instances' do
		this.marked = (template != null) ? null : definition.name();
		this.restarts = new RestartBudget(definition.name(), definition.restart(), host.scheduler(), System::nanoTime);
		this.state = !definition.enabled() ? ServerState.DISABLED
				: (definition.demand().start() == StartMode.LAZY) ? ServerState.IDLE : ServerState.STOPPED;
		this.events = new ServerEvents((template != null) ? template.events : null);
		if (template != null) {
			// what a client integration told the template holds for its instances
			this.selfInitialize = template.selfInitialize;
			this.clientRequestTimeout = template.clientRequestTimeout;
		}
	}

	private String name() {
		return this.definition.name();
	}

	@Override
	public ServerState state() {
		return this.state;
	}

	boolean isInitialized() {
		return this.initialized && this.state == ServerState.RUNNING;
	}

	void markInitialized() {
		this.initialized = true;
		this.starts.crashLoop(null);
	}

	void setSelfInitialize(boolean selfInitialize) {
		this.selfInitialize = selfInitialize;
	}

	@Override
	public @Nullable StdioServerProcess process() {
		return this.process;
	}

	List<StdioServerProcess> processes() {
		return Stream.ofNullable(this.process).toList();
	}

	/** Count the live processes of this server, every generation started by this JVM. */
	@Override
	public ProcessTree.Stats treeStats() {
		return this.host.count(this.marked, processes());
	}

	long generation() {
		return this.generation;
	}

	ServerEvents events() {
		return this.events;
	}

	@Override
	public void stopped(StopResult result) {
		this.events.stopped(result);
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

	@Nullable Duration clientRequestTimeout() {
		return this.clientRequestTimeout;
	}

	// Starts: the lifecycle's (begun for every server at once), a client's, an
	// operator's, a message's to a server started on demand. At most one is under way;
	// every caller joins it, bounded.

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
		if (!this.selfInitialize && this.definition.required()) {
			// A client performs the handshake later: at least the process must live
			StdioServerProcess current = this.process;
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
				if (lazy && this.state == ServerState.STOPPED) {
					// No process until the first message (unless a client started it)
					setState(ServerState.IDLE);
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
	@Override
	public void startIfIdle() {
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
			StdioServerProcess current = this.process;
			if (current != null && current.isRunning() && this.state == ServerState.RUNNING) {
				return CompletableFuture.completedFuture(null);
			}
			long stopsSeen = this.stops;
			CompletableFuture<Void> future = CompletableFuture.runAsync(() -> startProcess(false, stopsSeen),
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
	void awaitStart(CompletableFuture<Void> future) {
		Duration bound = this.definition.spec().startupTimeout().plus(this.definition.spec().shutdown().worstCase());
		Waits.await(future, bound, name(), "start");
	}

	private void startProcess(boolean byPolicy, long stopsSeen) {
		StdioServerProcess previous;
		synchronized (this.lock) {
			StdioServerProcess current = this.process;
			if (current != null && current.isRunning() && current != this.stopClaimed) {
				return;
			}
			checkNoStopSince(stopsSeen);
			this.restarts.cancel();
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
				return;
			}
			startedGeneration = ++this.generation;
			started = launch(startedGeneration);
		}
		if (this.selfInitialize) {
			handshake(started, byPolicy, startedGeneration, stopsSeen);
		}
	}

	/** Called with the lock held. */
	private StdioServerProcess launch(long startedGeneration) {
		this.wantRunning = true;
		this.initialized = false;
		this.lastFailure = null;
		this.starts.begin();
		setState(ServerState.STARTING);
		StdioServerProcess started;
		try {
			started = this.host.start(this.definition.spec(), new Generation(startedGeneration));
		}
		catch (RuntimeException ex) {
			this.lastFailure = ex.getMessage();
			this.starts.end();
			failed();
			throw ex;
		}
		this.process = started;
		Duration timeout = this.clientRequestTimeout;
		if (timeout != null) {
			started.setClientRequestTimeout(timeout);
		}
		if (started.exitInfo() == null) {
			if (!this.selfInitialize) {
				// a client performs the handshake: the start is over
				this.starts.end();
			}
			setState(ServerState.RUNNING);
		}
		return started;
	}

	private void checkNoStopSince(long stopsSeen) {
		if (this.stops != stopsSeen) {
			// A stop (or the context's destruction) came while this start waited: it
			// wins, else the process started now would be left behind
			throw new McpServerNotRunningException(name(),
					McpStdioException.describe(name()) + " was stopped before it could start");
		}
	}

	/**
	 * Perform the handshake of a process just started: a failed one ends its start (and
	 * the process), and counts against the restart policy when a restart ran it.
	 */
	private void handshake(StdioServerProcess started, boolean byPolicy, long startedGeneration, long stopsSeen) {
		try {
			started.handshake(this.definition.spec().startupTimeout());
			synchronized (this.lock) {
				this.initialized = true;
				this.starts.crashLoop(null);
				if (this.generation == startedGeneration) {
					this.starts.end();
				}
				// sends wait for it: see awaitSettled()
				this.lock.notifyAll();
			}
		}
		catch (RuntimeException ex) {
			boolean exited = ex instanceof McpServerExitedException;
			synchronized (this.lock) {
				this.lastFailure = ex.getMessage();
				if (this.generation == startedGeneration) {
					this.starts.end();
					if (byPolicy && !exited) {
						// the stop below is this attempt's failure, not a reason of its
						// own
						setState(ServerState.STOPPING);
					}
				}
			}
			if (!exited) {
				started.stop();
			}
			synchronized (this.lock) {
				// A handshake cut short by a stop is no failure of the server
				if (this.generation == startedGeneration && this.stops == stopsSeen) {
					if (!byPolicy) {
						failed();
					}
					else if (!exited && this.wantRunning && this.state == ServerState.STOPPING) {
						// A failed restart counts against the policy like any other end;
						// one
						// whose process exited is handled by its exit
						scheduleRestart();
					}
				}
			}
			throw ex;
		}
	}

	/**
	 * Wait while the server is between processes, at most through one start: the one
	 * under way, or the one a pending restart begins, not the ones after it. Bounded by
	 * {@code startup-timeout}, or by the restart's backoff plus {@code startup-timeout}.
	 * @throws McpServerExitedException if the start waited for failed and another restart
	 * is pending: the caller learns of that exit instead of waiting for the next start
	 */
	void awaitSettled() {
		if (!isSettling()) {
			// a send's usual case, without the lock: running, and initialized when it
			// performs the handshake itself
			return;
		}
		synchronized (this.lock) {
			if (!isSettling()) {
				return;
			}
			ExitInfo looping = this.starts.crashLoopExit();
			if (this.state == ServerState.RESTARTING && looping != null) {
				// the restart before this one ended as its process started: the caller
				// learns of that exit now, not after the next backoff
				throw looping.toException();
			}
			if (!this.starts.await(this.state == ServerState.RESTARTING, this.definition.spec().startupTimeout(),
					this::isSettling)) {
				return;
			}
			StdioServerProcess current = this.process;
			// The exit the controller was told of, which the process may not tell yet
			ExitInfo exit = this.events.lastExit();
			if (this.state == ServerState.RESTARTING && current != null && exit != null
					&& exit.pid() == current.pid()) {
				throw exit.toException();
			}
		}
	}

	/**
	 * Also read without the lock, on a send's fast path: every value read is volatile.
	 */
	private boolean isSettling() {
		ServerState current = this.state;
		return current == ServerState.RESTARTING || current == ServerState.STARTING
				|| (current == ServerState.RUNNING && this.selfInitialize && !this.initialized);
	}

	// Stops

	/**
	 * Give up on the server: stop what runs of it, cancel a pending restart, and leave it
	 * FAILED for the reason given. For a client that could not use it at start-up.
	 * @param reason why, as the endpoint shows it
	 */
	void giveUp(String reason) {
		StdioServerProcess current;
		synchronized (this.lock) {
			this.lastFailure = reason;
			if (this.state == ServerState.FAILED) {
				return;
			}
			this.stops++;
			this.wantRunning = false;
			this.restarts.cancel();
			// a stop forgets the lifecycle's start; given up, the lifecycle's start, when
			// it has not begun yet, runs no process
			this.starting = null;
			this.lifecycleStart = CompletableFuture.completedFuture(null);
			current = this.process;
			boolean first = current != null && this.stopClaimed != current;
			this.stopClaimed = current;
			// FAILED from now on, not STOPPING: whoever looks sees why
			setState(ServerState.FAILED);
			if (!first) {
				return;
			}
		}
		this.events.stopped(current.stop());
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
			this.restarts.cancel();
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
		this.events.stopped(result);
		return result;
	}

	/**
	 * Begin the stop of an idle server: it is {@link ServerState#IDLE} from now on (its
	 * next message starts it again). The caller makes sure that no message is being sent.
	 * @return the process to stop, its stop told to {@link #events()}, or {@code null}
	 * when the server does not run, is not initialized yet or a request is pending
	 */
	@Override
	public @Nullable StdioServerProcess claimIdleStop() {
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
			this.restarts.cancel();
			setState(ServerState.IDLE);
			return current;
		}
	}

	/**
	 * Stop a running process that went over a resource limit; its exit, with that cause,
	 * then goes to the restart policy like any other failure.
	 * @param over the process
	 * @param cause {@link ExitCause#MEMORY_LIMIT} or {@link ExitCause#PROCESS_LIMIT}
	 * @param reason the figures, for the exit's message
	 */
	@Override
	public void stopOverLimit(StdioServerProcess over, ExitCause cause, String reason) {
		synchronized (this.lock) {
			if (this.process != over || this.state != ServerState.RUNNING || !over.prepareStop(cause, reason)) {
				return;
			}
		}
		this.events.stopped(over.stop());
	}

	/**
	 * Stop the server for good: no start follows, whoever asks.
	 * @return how the stop went, or {@code null} when nothing was running
	 */
	@Nullable StopResult close() {
		synchronized (this.lock) {
			this.closed = true;
		}
		return stopServer();
	}

	/** Called with the lock held. */
	private void setState(ServerState newState) {
		ServerState old = this.state;
		this.state = newState;
		// sends waiting in awaitSettled() look again
		this.lock.notifyAll();
		if (old != newState) {
			// the usage supervisor first, then the listeners
			this.events.stateChanged(newState);
		}
	}

	/** Called with the lock held. */
	private void failed() {
		this.wantRunning = false;
		setState(ServerState.FAILED);
	}

	// Exits, and the restarts the policy asks for

	private void exited(long exitedGeneration, ExitInfo exit) {
		synchronized (this.lock) {
			this.events.exited(exit);
			if (exitedGeneration != this.generation) {
				return;
			}
			// a start whose process exited is over, whatever follows
			this.starts.end();
			// a process a restart ran that ended before it was initialized: a crash loop
			this.starts.crashLoop((!this.initialized && exitedGeneration > 1) ? exit : null);
			this.initialized = false;
			if (this.state == ServerState.STOPPING || this.state == ServerState.STOPPED
					|| this.state == ServerState.IDLE || !this.wantRunning) {
				return;
			}
			if (this.definition.restart().shouldRestart(exit)) {
				scheduleRestart();
			}
			else {
				failed();
			}
		}
	}

	/**
	 * Called with the lock held: a restart after its backoff, unless the policy gives up.
	 */
	private void scheduleRestart() {
		Duration backoff = this.restarts.nextBackoff();
		if (backoff == null) {
			failed();
			return;
		}
		// Listeners learn of the restart before its backoff starts to run
		this.starts.restartScheduled(backoff, this.definition.spec().startupTimeout());
		setState(ServerState.RESTARTING);
		// The scheduler's one thread must not block: the restart runs among the tasks
		this.restarts.schedule(() -> this.host.tasks().execute(this::restart), backoff);
	}

	private void restart() {
		long stopsSeen;
		synchronized (this.lock) {
			if (!this.wantRunning || this.state != ServerState.RESTARTING) {
				return;
			}
			stopsSeen = this.stops;
		}
		this.events.restarted();
		try {
			startProcess(true, stopsSeen);
		}
		catch (McpServerExitedException ex) {
			// its exit was logged at WARN already
			logger.debug(
					LogMessage.format("Restart of %s failed: its process exited", McpStdioException.describe(name())),
					ex);
		}
		catch (RuntimeException ex) {
			logger.warn(
					LogMessage.format("Restart of %s failed: %s", McpStdioException.describe(name()), ex.getMessage()));
		}
	}

	/**
	 * Routes one generation's messages and end to the client side: the end first to the
	 * state machine.
	 */
	private final class Generation implements MessageListener {

		private final long number;

		Generation(long number) {
			this.number = number;
		}

		@Override
		public void onMessage(JsonRpcLine message) {
			ServerController.this.client.onMessage(message);
		}

		@Override
		public void onMessage(JsonRpcLine message, @Nullable InFlightRequest answered) {
			ServerController.this.client.onMessage(message, answered);
		}

		@Override
		public void onExit(ExitInfo exit, List<InFlightRequest> unanswered) {
			exited(this.number, exit);
			ServerController.this.client.onExit(exit, unanswered);
		}

	}

}

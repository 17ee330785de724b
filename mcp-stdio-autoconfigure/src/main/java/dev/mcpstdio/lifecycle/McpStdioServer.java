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
import java.time.Instant;
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
import dev.mcpstdio.core.ProcessCensus.TreeStats;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.StdioServerProcess;
import dev.mcpstdio.core.StopResult;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;

/**
 * One configured MCP server, managed with the application: started with it, restarted by
 * its policy, and stopped in the contract's bounded order when the application stops,
 * after the web server so that requests in flight can still use its tools.
 * <p>
 * Without the Spring AI integration the server performs the MCP {@code initialize}
 * handshake itself at start; with it, Spring AI's client does, through
 * {@link #startServer()}, {@link #attach(MessageListener)} and
 * {@link #send(String, Object)}.
 * <p>
 * It is started by Spring ({@link #start()}, all servers in parallel) or by anyone else
 * ({@link #startServer()}: the endpoint, a client that connects), restarted by its
 * {@link RestartSupervisor}, and stopped by {@link #stopServer()}.
 *
 * @author mcp-stdio authors
 */
public class McpStdioServer implements SmartLifecycle, DisposableBean {

	/**
	 * The lifecycle phase: below the web server's start/stop phase
	 * ({@code WebServerApplicationContext.START_STOP_LIFECYCLE_PHASE}), so servers start
	 * before it and stop after it.
	 */
	public static final int PHASE = Integer.MAX_VALUE - 3072;

	private static final Log logger = LogFactory.getLog(McpStdioServer.class);

	private final McpStdioServerDefinition definition;

	private final ServerHost host;

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

	private volatile boolean lifecycleRunning;

	/** The process whose stop was begun and reported. */
	private @Nullable StdioServerProcess stopClaimed;

	/** Counts the stops, so that a start begun before a stop does not outlive it. */
	private long stops;

	/** The start that {@link McpStdioServers} began for the lifecycle's own start. */
	private volatile @Nullable CompletableFuture<Void> lifecycleStart;

	private volatile @Nullable ExitInfo lastExit;

	private volatile @Nullable String lastFailure;

	private volatile MessageListener session = MessageListener.NONE;

	/**
	 * Create a server.
	 * @param definition what to run and how
	 * @param host what it shares with the other servers: processes, threads, the guard
	 */
	public McpStdioServer(McpStdioServerDefinition definition, ServerHost host) {
		this.definition = definition;
		this.host = host;
		this.restartSupervisor = new RestartSupervisor(definition.name(), definition.restart(), host.scheduler(),
				System::nanoTime);
		this.state = definition.enabled() ? ServerState.STOPPED : ServerState.DISABLED;
		for (ExitCause cause : ExitCause.values()) {
			this.exits.put(cause, new AtomicLong());
		}
	}

	public String name() {
		return this.definition.name();
	}

	public McpStdioServerDefinition definition() {
		return this.definition;
	}

	public ServerState state() {
		return this.state;
	}

	/**
	 * Return whether the running process has answered MCP {@code initialize}.
	 * @return whether the server is initialized
	 */
	public boolean isInitialized() {
		return this.initialized && this.state == ServerState.RUNNING;
	}

	/**
	 * Return the current process, running or ended, or {@code null} before the first
	 * start.
	 * @return the process
	 */
	public @Nullable StdioServerProcess process() {
		return this.process;
	}

	public long restarts() {
		return this.restarts.get();
	}

	/**
	 * Return the generation of the current process: 1 for the first start, one more for
	 * every later one. A client session uses it to notice that it talks to a new process.
	 * @return the generation, 0 before the first start
	 */
	public long generation() {
		return this.generation;
	}

	public long exits(ExitCause cause) {
		return this.exits.get(cause).get();
	}

	public @Nullable ExitInfo lastExit() {
		return this.lastExit;
	}

	/**
	 * Return why the last start failed when no process exit explains it (a command that
	 * cannot run, a handshake that timed out).
	 * @return the failure or {@code null}
	 */
	public @Nullable String lastFailure() {
		return this.lastFailure;
	}

	public int pendingRequests() {
		StdioServerProcess current = this.process;
		return (current != null) ? current.pendingRequests() : 0;
	}

	/**
	 * Count the live processes of this server, every generation started by this JVM.
	 * @return the live processes and their memory
	 */
	public TreeStats treeStats() {
		StdioServerProcess current = this.process;
		return this.host.census().count(name(), (current != null) ? List.of(current) : List.of());
	}

	public void addListener(Listener listener) {
		this.listeners.add(listener);
	}

	/**
	 * Choose who performs the MCP handshake: the server itself at start (the default), or
	 * a client such as Spring AI's.
	 * @param selfInitialize whether the server performs the handshake
	 */
	public void setSelfInitialize(boolean selfInitialize) {
		this.selfInitialize = selfInitialize;
	}

	/**
	 * Route the process's messages and its end to a client session.
	 * @param listener the session, replacing any earlier one
	 */
	public void attach(MessageListener listener) {
		this.session = listener;
	}

	/**
	 * Stop routing messages to a session.
	 * @param listener the session to detach, if it is still attached
	 */
	public void detach(MessageListener listener) {
		if (this.session == listener) {
			this.session = MessageListener.NONE;
		}
	}

	/** Record that the running process answered {@code initialize}. */
	public void markInitialized() {
		this.initialized = true;
	}

	/**
	 * Send a message to the running process.
	 * @param message one JSON-RPC message
	 * @param requestId its id when it is a request, else {@code null}
	 * @see StdioServerProcess#send(String, Object)
	 */
	public void send(String message, @Nullable Object requestId) {
		currentForSend().send(message, requestId);
	}

	/**
	 * Send a request and get its response.
	 * @param id the request id
	 * @param message the request
	 * @return the response future
	 * @see StdioServerProcess#request(Object, String)
	 */
	public CompletableFuture<String> request(Object id, String message) {
		try {
			return currentForSend().request(id, message);
		}
		catch (McpStdioException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private StdioServerProcess currentForSend() {
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
	public void startServer() {
		if (!this.definition.enabled()) {
			throw new McpServerNotRunningException(name(), "MCP server '" + name() + "' is disabled");
		}
		awaitStart(beginStart());
	}

	/**
	 * Begin the lifecycle's start in the background, once per lifecycle start, so that
	 * {@link McpStdioServers} starts every server in parallel before each one's
	 * {@link #start()} awaits its own.
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

	private void awaitStart(CompletableFuture<Void> future) {
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
	public @Nullable StopResult stopServer() {
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
				listener.stopped(this, result);
			}
		}
		return result;
	}

	/**
	 * Stop the server and start it again, counted as a restart.
	 */
	public void restartServer() {
		stopServer();
		this.restarts.incrementAndGet();
		for (Listener listener : this.listeners) {
			listener.restarted(this);
		}
		startServer();
	}

	private void setState(ServerState newState) {
		ServerState old = this.state;
		this.state = newState;
		if (old != newState) {
			for (Listener listener : this.listeners) {
				listener.stateChanged(this, newState);
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
		// The scheduler's one thread must not block: the restart runs among the tasks
		if (this.restartSupervisor.schedule(() -> this.host.tasks().execute(this::restartByPolicy)) == null) {
			this.wantRunning = false;
			setState(ServerState.FAILED);
			return;
		}
		setState(ServerState.RESTARTING);
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
			listener.restarted(this);
		}
		try {
			startProcess(true, stopsSeen);
		}
		catch (RuntimeException ex) {
			logger.warn("Restart of MCP server '" + name() + "' failed: " + ex.getMessage());
		}
	}

	// SmartLifecycle

	@Override
	public void start() {
		if (!this.definition.enabled()) {
			return;
		}
		this.lifecycleRunning = true;
		try {
			// Await the start McpStdioServers began for all servers at once; starting
			// anew would run a server that failed fast a second time
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
		catch (RuntimeException ex) {
			if (this.definition.required()) {
				throw new McpServerStartupException(name(),
						"MCP server '" + name() + "' is required but could not start: " + ex.getMessage(), ex);
			}
			logger.error("MCP server '" + name() + "' could not start and is FAILED (it is not required, so the "
					+ "application goes on): " + ex.getMessage());
		}
	}

	@Override
	public void stop() {
		ServerState before = this.state;
		try {
			StopResult result = stopServer();
			if ((result == null || !result.wasRunning()) && this.lifecycleRunning && before != ServerState.STOPPED
					&& before != ServerState.DISABLED) {
				// One line per server at shutdown, also for one that had ended before
				ExitInfo exit = this.lastExit;
				logger.info("MCP server '" + name() + "' had already ended (" + before + ")" + ((exit != null)
						? ": " + exit.cause() + ", exit code " + exit.describeExitCode() + " at " + exit.at() : ""));
			}
		}
		finally {
			this.lifecycleRunning = false;
		}
	}

	@Override
	public void stop(Runnable callback) {
		Thread thread = new Thread(() -> {
			try {
				stop();
			}
			finally {
				callback.run();
			}
		}, "mcp-stdio-" + name() + "-stop");
		thread.setDaemon(true);
		thread.start();
	}

	@Override
	public boolean isRunning() {
		return this.lifecycleRunning;
	}

	@Override
	public boolean isAutoStartup() {
		return this.definition.enabled();
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	@Override
	public void destroy() {
		// Also reached when start-up aborts before the lifecycle ran: nothing is left
		stopServer();
	}

	/**
	 * Return when the current process started.
	 * @return the start time or {@code null}
	 */
	public @Nullable Instant startedAt() {
		StdioServerProcess current = this.process;
		return (current != null && this.state == ServerState.RUNNING) ? current.startedAt() : null;
	}

	/**
	 * Return the pid of the running process.
	 * @return the pid or {@code null}
	 */
	public @Nullable Long pid() {
		StdioServerProcess current = this.process;
		return (current != null && current.exitInfo() == null) ? current.pid() : null;
	}

	@Override
	public String toString() {
		return "McpStdioServer[" + name() + ", " + this.state + "]";
	}

	/**
	 * Learns what happens to a server, for metrics and logs.
	 */
	public interface Listener {

		default void stateChanged(McpStdioServer server, ServerState state) {
		}

		default void stopped(McpStdioServer server, StopResult result) {
		}

		default void restarted(McpStdioServer server) {
		}

	}

	private final class Dispatcher implements MessageListener {

		private final long generation;

		Dispatcher(long generation) {
			this.generation = generation;
		}

		@Override
		public void onMessage(String message) {
			McpStdioServer.this.session.onMessage(message);
		}

		@Override
		public void onExit(ExitInfo exit, List<Object> unansweredRequestIds) {
			exited(this.generation, exit);
			McpStdioServer.this.session.onExit(exit, new ArrayList<>(unansweredRequestIds));
		}

	}

}

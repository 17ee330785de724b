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

import dev.mcpstdio.McpServerExitedException;
import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.core.ExitCause;
import dev.mcpstdio.core.ExitInfo;
import dev.mcpstdio.core.McpHandshake;
import dev.mcpstdio.core.MessageListener;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.StdioServerProcess;
import dev.mcpstdio.core.StopResult;
import dev.mcpstdio.lifecycle.McpStdioServer.Listener;
import org.jspecify.annotations.Nullable;

/**
 * The state machine of one server: starts (joining one under way), stops that win over
 * starts begun before them, process exits and the restarts its policy asks for, each
 * generation of the process replacing the previous one only once that one is gone. All
 * state changes happen under one lock; no process is stopped while the lock is held, so a
 * stop never waits behind a start.
 *
 * @author mcp-stdio authors
 */
final class ServerController implements ServerStarter.Machine, PolicyRestarter.Machine {

	private final McpStdioServerDefinition definition;

	private final ServerHost host;

	private final MessageListener session;

	private final RestartSupervisor restartSupervisor;

	private final SettleWait settle;

	private final PolicyRestarter policyRestarts;

	private final Object lock = new Object();

	private final ServerEvents events;

	private final ServerStarter starts;

	private volatile ServerState state;

	private volatile @Nullable StdioServerProcess process;

	private volatile long generation;

	private volatile boolean initialized;

	private volatile boolean selfInitialize = true;

	private volatile boolean wantRunning;

	/** The process whose stop was begun and reported. */
	private @Nullable StdioServerProcess stopClaimed;

	/** Counts the stops, so that a start begun before a stop does not outlive it. */
	private long stops;

	private volatile @Nullable String lastFailure;

	private volatile @Nullable Duration clientRequestTimeout;

	/**
	 * Create the state machine of a server.
	 * @param server the server, as listeners learn of it
	 * @param host what it shares with the other servers
	 * @param session receives the messages and the end of every process
	 */
	ServerController(McpStdioServer server, ServerHost host, MessageListener session) {
		this.definition = server.definition();
		this.host = host;
		this.session = session;
		this.restartSupervisor = new RestartSupervisor(this.definition.name(), this.definition.restart(),
				host.scheduler(), System::nanoTime);
		this.events = new ServerEvents(server);
		this.starts = new ServerStarter(this.lock, this.definition, host.tasks(), this);
		this.settle = new SettleWait(this.lock, this.definition.startupTimeout(), System::nanoTime, this::isSettling,
				() -> this.state == ServerState.RESTARTING);
		this.policyRestarts = new PolicyRestarter(name(), this.lock, this.restartSupervisor, host.tasks(), this.events,
				this.settle, this);
		this.state = !this.definition.enabled() ? ServerState.DISABLED
				: (this.definition.demand().start() == StartMode.LAZY) ? ServerState.IDLE : ServerState.STOPPED;
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

	ServerEvents events() {
		return this.events;
	}

	ServerStarter starts() {
		return this.starts;
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
		this.events.addListener(listener);
	}

	/**
	 * Wait while the server is between processes, bounded: see {@link SettleWait}.
	 */
	void awaitSettled() {
		this.settle.await();
	}

	/** Called with the lock held. */
	private boolean isSettling() {
		ServerState current = this.state;
		return current == ServerState.RESTARTING || current == ServerState.STARTING
				|| (current == ServerState.RUNNING && this.selfInitialize && !this.initialized);
	}

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
			this.restartSupervisor.cancel();
			// a stop forgets the lifecycle's start: given up, it must not run another
			this.starts.forget();
			this.starts.givenUp();
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

	@Override
	public boolean isRunning() {
		StdioServerProcess current = this.process;
		return current != null && current.isRunning() && this.state == ServerState.RUNNING;
	}

	@Override
	public void idleIfStopped() {
		if (this.state == ServerState.STOPPED) {
			setState(ServerState.IDLE);
		}
	}

	@Override
	public long stops() {
		return this.stops;
	}

	@Override
	public StdioServerProcess startProcess(boolean byPolicy, long stopsSeen) {
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
			this.settle.startBegun();
			setState(ServerState.STARTING);
			try {
				started = this.host.start(this.definition.spec(),
						new GenerationDispatcher(startedGeneration, this.session, this::exited));
			}
			catch (RuntimeException ex) {
				this.lastFailure = ex.getMessage();
				this.settle.startEnded();
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
					this.settle.startEnded();
				}
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
				if (this.generation == startedGeneration) {
					this.settle.startEnded();
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
					this.settle.startEnded();
					this.lock.notifyAll();
				}
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
						failed();
					}
					else if (!exited && this.wantRunning && this.state == ServerState.STOPPING) {
						// A failed restart counts against the policy like any other end;
						// one whose process exited is handled by its exit
						this.policyRestarts.schedule();
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
		return stopServer(false);
	}

	/**
	 * Stop the server: the contract's four bounded steps. No restart follows.
	 * @param withOthers whether the application's shutdown stops it together with the
	 * other servers ({@link StdioServerProcess#stopWithOthers()})
	 * @return how the stop went, or {@code null} when nothing was running
	 */
	@Nullable StopResult stopServer(boolean withOthers) {
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
			this.starts.forget();
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
		StopResult result = withOthers ? current.stopWithOthers() : current.stop();
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
		this.events.stopped(claimed.stop());
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
		this.events.stopped(over.stop());
	}

	/**
	 * Stop the server and start it again, counted as a restart.
	 */
	void restartServer() {
		stopServer();
		this.events.restarted();
		this.starts.startServer();
	}

	/** Called with the lock held. */
	private void setState(ServerState newState) {
		ServerState old = this.state;
		this.state = newState;
		// sends waiting in awaitSettled() look again
		this.lock.notifyAll();
		if (old != newState) {
			this.events.stateChanged(newState);
		}
	}

	private void exited(long exitedGeneration, ExitInfo exit) {
		synchronized (this.lock) {
			this.events.exited(exit);
			if (exitedGeneration != this.generation) {
				return;
			}
			// a start whose process exited is over, whatever follows
			this.settle.startEnded();
			this.lock.notifyAll();
			this.initialized = false;
			if (this.state == ServerState.STOPPING || this.state == ServerState.STOPPED
					|| this.state == ServerState.IDLE || !this.wantRunning) {
				return;
			}
			this.policyRestarts.exited(exit);
		}
	}

	@Override
	public void failed() {
		this.wantRunning = false;
		setState(ServerState.FAILED);
	}

	@Override
	public void restarting() {
		setState(ServerState.RESTARTING);
	}

	@Override
	public boolean restartDue() {
		return this.wantRunning && this.state == ServerState.RESTARTING;
	}

}

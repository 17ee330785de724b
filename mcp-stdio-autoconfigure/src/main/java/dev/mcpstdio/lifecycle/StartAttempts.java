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

import dev.mcpstdio.McpServerExitedException;
import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.server.StdioServerProcess;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.core.log.LogMessage;

/**
 * The attempts to start one server, each its own run: the previous generation stopped,
 * all of it, the next launched, and its handshake performed when the server performs it
 * itself; the restarts the policy asks for run here too. Its changes of the state are the
 * state machine's, under its lock.
 *
 * @author mcp-stdio authors
 */
final class StartAttempts {

	// Logged as the state machine's own messages
	private static final Log logger = LogFactory.getLog(ServerController.class);

	private final ServerController controller;

	private final McpStdioServerDefinition definition;

	private final ServerHost host;

	private final ServerStarts starts;

	private final Object lock;

	private final ServerStatus status;

	private final StartTally tally;

	/**
	 * Create the attempts of a server.
	 * @param controller its state machine
	 * @param definition the server
	 * @param host where its processes start
	 * @param starts the stops that an attempt must not outlive
	 * @param lock the state machine's lock, which guards every attempt's steps
	 */
	StartAttempts(ServerController controller, McpStdioServerDefinition definition, ServerHost host,
			ServerStarts starts, Object lock) {
		this.controller = controller;
		this.definition = definition;
		this.host = host;
		this.starts = starts;
		this.lock = lock;
		this.status = controller.status();
		this.tally = controller.tally();
	}

	private String name() {
		return this.definition.name();
	}

	/**
	 * Run one start: stop the previous generation, all of it, launch the next, and
	 * perform its handshake when the server performs it itself.
	 */
	void run(boolean byPolicy, long stopsSeen) {
		StdioServerProcess previous;
		synchronized (this.lock) {
			if (this.controller.stops().runsUnclaimed()) {
				return;
			}
			checkNoStopSince(stopsSeen);
			previous = this.controller.replacing();
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
			StdioServerProcess current = this.status.process();
			if (current != previous && current != null && current.isRunning()) {
				return;
			}
			startedGeneration = this.status.nextGeneration();
			started = launch(startedGeneration);
		}
		if (this.controller.terms().selfInitialize()) {
			handshake(started, byPolicy, startedGeneration, stopsSeen);
		}
	}

	/**
	 * Called with the lock held: launch a generation, STARTING, then RUNNING once its
	 * process lives; FAILED when it cannot run.
	 */
	private StdioServerProcess launch(long startedGeneration) {
		this.status.initialized(false);
		this.status.lastFailure(null);
		this.tally.begin();
		this.controller.launching();
		StdioServerProcess started;
		try {
			started = this.host.start(this.definition.spec(), this.controller.routing(startedGeneration));
		}
		catch (RuntimeException ex) {
			this.status.lastFailure(ex.getMessage());
			this.tally.end();
			this.controller.failed();
			throw ex;
		}
		this.status.process(started);
		this.controller.terms().applyTo(started);
		if (started.exitInfo() == null) {
			if (!this.controller.terms().selfInitialize()) {
				// a client performs the handshake: the start is over
				this.tally.end();
			}
			this.controller.setState(ServerState.RUNNING);
		}
		return started;
	}

	private void checkNoStopSince(long stopsSeen) {
		if (this.starts.stops() != stopsSeen) {
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
				this.status.initialized(true);
				this.tally.crashLoop(null);
				if (this.status.generation() == startedGeneration) {
					this.tally.end();
				}
				// sends wait for it: see StartTally.awaitSettled()
				this.lock.notifyAll();
			}
		}
		catch (RuntimeException ex) {
			boolean exited = ex instanceof McpServerExitedException;
			synchronized (this.lock) {
				this.status.lastFailure(ex.getMessage());
				if (this.status.generation() == startedGeneration) {
					this.tally.end();
					if (byPolicy && !exited) {
						// the stop below is this attempt's failure, not a reason of its
						// own
						this.controller.setState(ServerState.STOPPING);
					}
				}
			}
			if (!exited) {
				started.stop();
			}
			synchronized (this.lock) {
				// A handshake cut short by a stop is no failure of the server
				if (this.status.generation() == startedGeneration && this.starts.stops() == stopsSeen) {
					if (!byPolicy) {
						this.controller.failed();
					}
					else if (!exited && this.controller.wantsRunning() && this.status.state() == ServerState.STOPPING) {
						// A failed restart counts against the policy like any other end;
						// one whose process exited is handled by its exit
						this.controller.scheduleRestart();
					}
				}
			}
			throw ex;
		}
	}

	/** A restart after its backoff, unless a stop or a start came first. */
	void restart() {
		long stopsSeen;
		synchronized (this.lock) {
			if (!this.controller.wantsRunning() || this.status.state() != ServerState.RESTARTING) {
				return;
			}
			stopsSeen = this.starts.stops();
		}
		this.controller.events().restarted();
		try {
			run(true, stopsSeen);
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

}

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
import java.util.concurrent.Executor;

import dev.mcpstdio.core.ExitInfo;
import dev.mcpstdio.core.StdioServerProcess;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * What follows an exit that nobody asked for: a restart after the policy's backoff, run
 * among the tasks, or {@link ServerState#FAILED} when the policy does not restart or
 * gives up. The state machine decides whether an exit is one to follow; it calls this
 * with its lock held, and this changes its state through {@link Machine}.
 *
 * @author mcp-stdio authors
 */
final class PolicyRestarter {

	private static final Log logger = LogFactory.getLog(PolicyRestarter.class);

	private final String serverName;

	private final Object lock;

	private final RestartSupervisor supervisor;

	private final Executor tasks;

	private final ServerEvents events;

	private final SettleWait settle;

	private final Machine machine;

	PolicyRestarter(String serverName, Object lock, RestartSupervisor supervisor, Executor tasks, ServerEvents events,
			SettleWait settle, Machine machine) {
		this.serverName = serverName;
		this.lock = lock;
		this.supervisor = supervisor;
		this.tasks = tasks;
		this.events = events;
		this.settle = settle;
		this.machine = machine;
	}

	/**
	 * Follow an exit of the running process of a server that is to run: restart it if the
	 * policy says so, else it has failed. Called with the lock held.
	 * @param exit the exit
	 */
	void exited(ExitInfo exit) {
		if (this.supervisor.policy().shouldRestart(exit)) {
			schedule();
		}
		else {
			this.machine.failed();
		}
	}

	/**
	 * Schedule a restart after its backoff, unless the policy gives up (the server has
	 * then failed). Called with the lock held.
	 */
	void schedule() {
		Duration backoff = this.supervisor.nextBackoff();
		if (backoff == null) {
			this.machine.failed();
			return;
		}
		// Listeners learn of the restart before its backoff starts to run
		this.settle.restartScheduled(backoff);
		this.machine.restarting();
		// The scheduler's one thread must not block: the restart runs among the tasks
		this.supervisor.schedule(() -> this.tasks.execute(this::restart), backoff);
	}

	private void restart() {
		long stopsSeen;
		synchronized (this.lock) {
			if (!this.machine.restartDue()) {
				return;
			}
			stopsSeen = this.machine.stops();
		}
		this.events.restarted();
		try {
			this.machine.startProcess(true, stopsSeen);
		}
		catch (RuntimeException ex) {
			logger.warn("Restart of MCP server '" + this.serverName + "' failed: " + ex.getMessage());
		}
	}

	/** What a restart needs of the state machine. */
	interface Machine {

		/**
		 * The server will not run again by itself: it is {@link ServerState#FAILED}.
		 * Called with the lock held.
		 */
		void failed();

		/**
		 * A restart is scheduled: the server is {@link ServerState#RESTARTING}. Called
		 * with the lock held.
		 */
		void restarting();

		/**
		 * Return whether the restart scheduled is still wanted: no stop or start came
		 * first. Called with the lock held.
		 * @return whether to restart now
		 */
		boolean restartDue();

		/**
		 * Return how many stops there were. Called with the lock held.
		 * @return the count of stops
		 */
		long stops();

		/**
		 * Start a process, unless one runs: called without the lock.
		 * @param byPolicy whether it is a restart by the policy
		 * @param stopsSeen {@link #stops()} when the restart began
		 * @return the process
		 */
		StdioServerProcess startProcess(boolean byPolicy, long stopsSeen);

	}

}

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
import java.util.Locale;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.LongSupplier;

import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.ExitInfo;
import dev.mcpstdio.core.StdioServerProcess;
import dev.mcpstdio.core.support.Durations;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.Demand;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Starts a server on demand and stops it when idle: a message to an
 * {@link ServerState#IDLE} server starts it, its sender waiting for the start, and a
 * server with an {@code idle-timeout} that had no message and no pending request for that
 * long is stopped with the normal stop and goes {@code IDLE}. A stop never overlaps a
 * send: the check and the senders exclude each other.
 *
 * @author mcp-stdio authors
 */
final class DemandSupervisor implements McpStdioServer.Listener {

	private static final Log logger = LogFactory.getLog(DemandSupervisor.class);

	private final String serverName;

	private final ServerController controller;

	private final Demand demand;

	private final ScheduledExecutorService scheduler;

	private final Executor tasks;

	private final LongSupplier nanoClock;

	/** Guards {@link #sending} against the claim of an idle stop. */
	private final Object lock = new Object();

	private final AtomicReference<@Nullable ScheduledFuture<?>> check = new AtomicReference<>();

	/** Messages being sent now. */
	private int sending;

	/** When a message was last sent or received, by {@link #nanoClock}. */
	private volatile long lastActivity;

	DemandSupervisor(String serverName, ServerController controller, Demand demand, ScheduledExecutorService scheduler,
			Executor tasks, LongSupplier nanoClock) {
		this.serverName = serverName;
		this.controller = controller;
		this.demand = demand;
		this.scheduler = scheduler;
		this.tasks = tasks;
		this.nanoClock = nanoClock;
		this.lastActivity = nanoClock.getAsLong();
	}

	/**
	 * Send through the current process, started first when the server is idle; no idle
	 * stop begins while the send is under way.
	 * @param <T> what the send returns
	 * @param send the send
	 * @return what it returned
	 */
	<T> T send(Function<StdioServerProcess, T> send) {
		if (!this.demand.onDemand()) {
			return send.apply(currentForSend());
		}
		synchronized (this.lock) {
			this.sending++;
		}
		touch();
		try {
			this.controller.starts().startOnDemand();
			return send.apply(currentForSend());
		}
		finally {
			synchronized (this.lock) {
				this.sending--;
			}
			touch();
		}
	}

	/**
	 * Return the process a message goes to. While the server is between processes (a
	 * restart pending or under way) this waits for the new one, bounded by
	 * {@link ServerController#awaitSettled()}.
	 * @return the current process
	 * @throws McpServerNotRunningException if the server is stopping, stopped or disabled
	 */
	private StdioServerProcess currentForSend() {
		this.controller.awaitSettled();
		StdioServerProcess current = this.controller.process();
		ServerState currentState = this.controller.state();
		if (currentState == ServerState.STOPPED || currentState == ServerState.STOPPING
				|| currentState == ServerState.DISABLED || currentState == ServerState.IDLE) {
			throw new McpServerNotRunningException(this.serverName, "MCP server '" + this.serverName + "' is "
					+ currentState.name().toLowerCase(Locale.ROOT) + "; start it first");
		}
		String failure = this.controller.lastFailure();
		ExitInfo exit = (current != null) ? current.exitInfo() : null;
		boolean exitSaysWhy = exit != null && exit.cause().isFailure();
		if (current == null || (currentState == ServerState.FAILED && failure != null && !exitSaysWhy)) {
			// no process tells why: the start that failed does
			throw new McpStdioException(this.serverName, (failure != null) ? failure
					: "MCP server '" + this.serverName + "' is " + currentState.name().toLowerCase(Locale.ROOT));
		}
		// a process that ended fails the send, naming its exit
		return current;
	}

	/**
	 * Start the server if it is idle, for a caller that must prepare the new process
	 * before its message (a client replaying its handshake).
	 */
	void startOnDemand() {
		if (this.demand.onDemand()) {
			touch();
			this.controller.starts().startOnDemand();
		}
	}

	/** Record that a message went to or came from the server. */
	void touch() {
		this.lastActivity = this.nanoClock.getAsLong();
	}

	@Override
	public void stateChanged(McpStdioServer server, ServerState state) {
		// Called under the controller's lock: schedules, never waits
		if (state == ServerState.RUNNING && this.demand.idleTimeout() != null) {
			touch();
			schedule(this.demand.idleTimeout().toNanos());
		}
	}

	// On the host's scheduler, handing the check to its tasks: the scheduler's one thread
	// never blocks
	private void schedule(long delayNanos) {
		ScheduledFuture<?> next = this.scheduler.schedule(() -> this.tasks.execute(this::checkIdle),
				Math.max(delayNanos, 1_000_000L), TimeUnit.NANOSECONDS);
		ScheduledFuture<?> previous = this.check.getAndSet(next);
		if (previous != null) {
			previous.cancel(false);
		}
	}

	private void checkIdle() {
		Duration timeout = this.demand.idleTimeout();
		if (timeout == null || this.controller.state() != ServerState.RUNNING) {
			// Armed again when it runs again
			return;
		}
		long idleFor;
		StdioServerProcess claimed = null;
		synchronized (this.lock) {
			idleFor = this.nanoClock.getAsLong() - this.lastActivity;
			if (this.sending == 0 && idleFor >= timeout.toNanos()) {
				// null while a request is pending or the start is not over
				claimed = this.controller.claimIdleStop();
			}
			if (claimed == null) {
				// An answer counts as activity: a pending request is looked at again a
				// timeout later
				schedule((idleFor < timeout.toNanos()) ? timeout.toNanos() - idleFor : timeout.toNanos());
				return;
			}
		}
		logger.info("Stopping MCP server '" + this.serverName + "' (pid " + claimed.pid() + "): idle for "
				+ Duration.ofNanos(idleFor).toMillis() + " ms (idle-timeout " + Durations.format(timeout)
				+ "); its next message starts it again");
		this.controller.stopClaimed(claimed);
	}

}

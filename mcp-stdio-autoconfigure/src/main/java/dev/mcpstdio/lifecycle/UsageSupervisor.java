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
import java.util.Locale;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import dev.mcpstdio.core.support.Waits;
import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.server.ExitCause;
import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.core.tree.ProcessTree;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Starts a server on demand and stops it when idle or over its resource limits.
 *
 * @author mcp-stdio authors
 */
final class UsageSupervisor {

	private static final Log logger = LogFactory.getLog(UsageSupervisor.class);

	private static final long MB = 1024 * 1024;

	private final McpStdioServerDefinition definition;

	private final ServerHost host;

	/**
	 * Guards {@link #sending} against the claim of an idle stop: they exclude each other.
	 */
	private final Object lock = new Object();

	private final AtomicReference<@Nullable ScheduledFuture<?>> idleCheck = new AtomicReference<>();

	private final AtomicReference<@Nullable ScheduledFuture<?>> limitChecks = new AtomicReference<>();

	/**
	 * Set while a limit check (and the stop it may lead to) runs: checks never overlap.
	 */
	private final AtomicBoolean checking = new AtomicBoolean();

	/** Messages being sent now. */
	private int sending;

	/** When a message was last sent or received, by {@link System#nanoTime()}. */
	private volatile long lastActivity = System.nanoTime();

	// The controller is handed in with each call, never kept from the constructor: the
	// controller creates this supervisor in its own.

	UsageSupervisor(McpStdioServerDefinition definition, ServerHost host) {
		this.definition = definition;
		this.host = host;
	}

	/**
	 * Send through the current process, started first when the server is idle; no idle
	 * stop begins while the send is under way.
	 * @param <T> what the send returns
	 * @param controller the server's state machine
	 * @param send the send
	 * @return what it returned
	 */
	<T> T send(ServerController controller, Function<StdioServerProcess, T> send) {
		if (!this.definition.demand().onDemand()) {
			return send.apply(currentForSend(controller));
		}
		synchronized (this.lock) {
			this.sending++;
		}
		touch();
		try {
			controller.startIfIdle();
			return send.apply(currentForSend(controller));
		}
		finally {
			synchronized (this.lock) {
				this.sending--;
			}
			touch();
		}
	}

	/**
	 * Return the process a message goes to, once the server is past a start or restart.
	 * @return the current process, which fails the send naming its exit if it ended
	 * @throws McpServerNotRunningException if the server is stopping, stopped or disabled
	 */
	private StdioServerProcess currentForSend(ServerController controller) {
		controller.awaitSettled();
		StdioServerProcess current = controller.process();
		ServerState state = controller.state();
		if (state == ServerState.STOPPED || state == ServerState.STOPPING || state == ServerState.DISABLED
				|| state == ServerState.IDLE) {
			throw new McpServerNotRunningException(this.definition.name(), "MCP server '" + this.definition.name()
					+ "' is " + state.name().toLowerCase(Locale.ROOT) + "; start it first");
		}
		String failure = controller.lastFailure();
		ExitInfo exit = (current != null) ? current.exitInfo() : null;
		boolean exitSaysWhy = exit != null && exit.cause().isFailure();
		if (current == null || (state == ServerState.FAILED && failure != null && !exitSaysWhy)) {
			// no process tells why: the start that failed does
			throw new McpStdioException(this.definition.name(), (failure != null) ? failure
					: "MCP server '" + this.definition.name() + "' is " + state.name().toLowerCase(Locale.ROOT));
		}
		return current;
	}

	/** Record that a message went to or came from the server. */
	void touch() {
		this.lastActivity = System.nanoTime();
	}

	Instant lastUsed() {
		return Instant.now().minusNanos(System.nanoTime() - this.lastActivity);
	}

	/** Learns every change of the state, under the controller's lock. */
	void stateChanged(ServerController controller, ServerState state) {
		// Called under the controller's lock: schedules or cancels, never waits. The
		// scheduler's one thread hands each check to the tasks: a check reads /proc
		if (state == ServerState.RUNNING && this.definition.demand().idleTimeout() != null) {
			touch();
			scheduleIdleCheck(controller, this.definition.demand().idleTimeout().toNanos());
		}
		else if (state != ServerState.RUNNING) {
			// a check waiting in the scheduler holds the controller, and so its process,
			// until it is due (an idle-timeout away): let a stopped server go now
			cancel(this.idleCheck.getAndSet(null));
		}
		if (!this.definition.limits().any()) {
			return;
		}
		ScheduledFuture<?> armed = null;
		if (state == ServerState.RUNNING) {
			long interval = this.definition.limits().checkInterval().toNanos();
			armed = this.host.scheduler()
				.scheduleWithFixedDelay(() -> this.host.tasks().execute(() -> checkLimits(controller)), interval,
						interval, TimeUnit.NANOSECONDS);
		}
		cancel(this.limitChecks.getAndSet(armed));
	}

	private static void cancel(@Nullable ScheduledFuture<?> future) {
		if (future != null) {
			future.cancel(false);
		}
	}

	private void scheduleIdleCheck(ServerController controller, long delayNanos) {
		cancel(this.idleCheck.getAndSet(this.host.scheduler()
			.schedule(() -> this.host.tasks().execute(() -> checkIdle(controller)), Math.max(delayNanos, 1_000_000L),
					TimeUnit.NANOSECONDS)));
	}

	private void checkIdle(ServerController controller) {
		Duration timeout = this.definition.demand().idleTimeout();
		if (timeout == null || controller.state() != ServerState.RUNNING) {
			// Armed again when it runs again
			return;
		}
		long idleFor;
		StdioServerProcess claimed = null;
		synchronized (this.lock) {
			idleFor = System.nanoTime() - this.lastActivity;
			if (this.sending == 0 && idleFor >= timeout.toNanos()) {
				// null while a request is pending or the start is not over
				claimed = controller.claimIdleStop();
			}
			if (claimed == null) {
				// An answer counts as activity: a pending request is looked at again a
				// timeout later
				scheduleIdleCheck(controller,
						(idleFor < timeout.toNanos()) ? timeout.toNanos() - idleFor : timeout.toNanos());
				return;
			}
		}
		logger.info("Stopping MCP server '" + this.definition.name() + "' (pid " + claimed.pid() + "): idle for "
				+ Duration.ofNanos(idleFor).toMillis() + " ms (idle-timeout " + Waits.format(timeout)
				+ "); its next message starts it again");
		controller.events().stopped(claimed.stop());
	}

	/** Check the running process once, counted as the endpoint counts it. */
	private void checkLimits(ServerController controller) {
		if (!this.checking.compareAndSet(false, true)) {
			return;
		}
		try {
			StdioServerProcess current = controller.process();
			if (controller.state() != ServerState.RUNNING || current == null || !current.isRunning()) {
				return;
			}
			ProcessTree.Stats stats = controller.treeStats();
			Integer maxProcesses = this.definition.limits().maxProcesses();
			Long maxMemory = this.definition.limits().maxMemoryBytes();
			String figures = stats.liveProcesses() + ((stats.liveProcesses() == 1) ? " process" : " processes")
					+ " using " + size(stats.memoryBytes()) + " of resident memory";
			if (maxProcesses != null && stats.liveProcesses() > maxProcesses) {
				stopOverLimit(controller, current, ExitCause.PROCESS_LIMIT,
						figures + ", over max-processes " + maxProcesses);
			}
			else if (maxMemory != null && stats.memoryBytes() > maxMemory) {
				stopOverLimit(controller, current, ExitCause.MEMORY_LIMIT,
						figures + ", over max-memory " + size(maxMemory));
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Could not check the resources of MCP server '" + this.definition.name() + "': " + ex);
		}
		finally {
			this.checking.set(false);
		}
	}

	/** Say why, then stop a process that went over a resource limit. */
	private void stopOverLimit(ServerController controller, StdioServerProcess over, ExitCause cause, String reason) {
		logger.warn("MCP server '" + this.definition.name() + "' (pid " + over.pid() + ") has " + reason
				+ "; stopping it (" + cause + ")");
		controller.stopOverLimit(over, cause, reason);
	}

	static String size(long bytes) {
		return (bytes % MB == 0) ? (bytes / MB) + " MB" : String.format(Locale.ROOT, "%.1f MB", (double) bytes / MB);
	}

}

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

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.server.ExitCause;
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
 * Starts a server on demand and stops it when idle or over its resource limits.
 *
 * @author mcp-stdio authors
 */
final class UsageSupervisor {

	private static final Log logger = LogFactory.getLog(UsageSupervisor.class);

	private static final long MB = 1024 * 1024;

	private final McpStdioServerDefinition definition;

	private final ServerHost host;

	private final Supervised server;

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

	/**
	 * Create the supervisor of a server.
	 * @param definition the server
	 * @param host where its checks run
	 * @param server what it looks at and stops
	 */
	UsageSupervisor(McpStdioServerDefinition definition, ServerHost host, Supervised server) {
		this.definition = definition;
		this.host = host;
		this.server = server;
	}

	/**
	 * Begin a send: the server is started first when it is idle (on demand), and no idle
	 * stop begins until {@link #endSend()}.
	 */
	void beginSend() {
		if (!this.definition.demand().onDemand()) {
			return;
		}
		synchronized (this.lock) {
			this.sending++;
		}
		touch();
		try {
			this.server.startIfIdle();
		}
		catch (RuntimeException ex) {
			endSend();
			throw ex;
		}
	}

	/** End a send begun with {@link #beginSend()}, whatever its outcome. */
	void endSend() {
		if (!this.definition.demand().onDemand()) {
			return;
		}
		synchronized (this.lock) {
			this.sending--;
		}
		touch();
	}

	/** Record that a message went to or came from the server. */
	void touch() {
		this.lastActivity = System.nanoTime();
	}

	Instant lastUsed() {
		return Instant.now().minusNanos(System.nanoTime() - this.lastActivity);
	}

	/** Learns every change of the state, under the state machine's lock. */
	void stateChanged(ServerState state) {
		// Called under the state machine's lock: schedules or cancels, never waits. The
		// scheduler's one thread hands each check to the tasks: a check reads /proc
		if (state == ServerState.RUNNING && this.definition.demand().idleTimeout() != null) {
			touch();
			scheduleIdleCheck(this.definition.demand().idleTimeout().toNanos());
		}
		else if (state != ServerState.RUNNING) {
			// a check waiting in the scheduler holds the server, and so its process,
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
				.scheduleWithFixedDelay(() -> this.host.tasks().execute(() -> checkLimits()), interval, interval,
						TimeUnit.NANOSECONDS);
		}
		cancel(this.limitChecks.getAndSet(armed));
	}

	private static void cancel(@Nullable ScheduledFuture<?> future) {
		if (future != null) {
			future.cancel(false);
		}
	}

	private void scheduleIdleCheck(long delayNanos) {
		cancel(this.idleCheck.getAndSet(this.host.scheduler()
			.schedule(() -> this.host.tasks().execute(() -> checkIdle()), Math.max(delayNanos, 1_000_000L),
					TimeUnit.NANOSECONDS)));
	}

	private void checkIdle() {
		Duration timeout = this.definition.demand().idleTimeout();
		if (timeout == null || this.server.state() != ServerState.RUNNING) {
			// Armed again when it runs again
			return;
		}
		long idleFor;
		StdioServerProcess claimed = null;
		synchronized (this.lock) {
			idleFor = System.nanoTime() - this.lastActivity;
			if (this.sending == 0 && idleFor >= timeout.toNanos()) {
				// null while a request is pending or the start is not over
				claimed = this.server.claimIdleStop();
			}
			if (claimed == null) {
				// An answer counts as activity: a pending request is looked at again a
				// timeout later
				scheduleIdleCheck((idleFor < timeout.toNanos()) ? timeout.toNanos() - idleFor : timeout.toNanos());
				return;
			}
		}
		logger.info(LogMessage.format(
				"Stopping %s (pid %d): idle for %d ms (idle-timeout %s); its next message starts " + "it again",
				McpStdioException.describe(this.definition.name()), claimed.pid(), Duration.ofNanos(idleFor).toMillis(),
				Waits.format(timeout)));
		this.server.stopped(claimed.stop());
	}

	/** Check the running process once, counted as the endpoint counts it. */
	private void checkLimits() {
		if (!this.checking.compareAndSet(false, true)) {
			return;
		}
		try {
			StdioServerProcess current = this.server.process();
			if (this.server.state() != ServerState.RUNNING || current == null || !current.isRunning()) {
				return;
			}
			ProcessTree.Stats stats = this.server.treeStats();
			Integer maxProcesses = this.definition.limits().maxProcesses();
			Long maxMemory = this.definition.limits().maxMemoryBytes();
			String figures = stats.liveProcesses() + ((stats.liveProcesses() == 1) ? " process" : " processes")
					+ " using " + size(stats.memoryBytes()) + " of resident memory";
			if (maxProcesses != null && stats.liveProcesses() > maxProcesses) {
				stopOverLimit(current, ExitCause.PROCESS_LIMIT, figures + ", over max-processes " + maxProcesses);
			}
			else if (maxMemory != null && stats.memoryBytes() > maxMemory) {
				stopOverLimit(current, ExitCause.MEMORY_LIMIT, figures + ", over max-memory " + size(maxMemory));
			}
		}
		catch (RuntimeException ex) {
			logger.warn(LogMessage.format("Could not check the resources of %s: %s",
					McpStdioException.describe(this.definition.name()), ex));
		}
		finally {
			this.checking.set(false);
		}
	}

	/** Say why, then stop a process that went over a resource limit. */
	private void stopOverLimit(StdioServerProcess over, ExitCause cause, String reason) {
		logger.warn(LogMessage.format("%s (pid %d) has %s; stopping it (%s)",
				McpStdioException.describe(this.definition.name()), over.pid(), reason, cause));
		this.server.stopOverLimit(over, cause, reason);
	}

	static String size(long bytes) {
		return (bytes % MB == 0) ? (bytes / MB) + " MB" : String.format(Locale.ROOT, "%.1f MB", (double) bytes / MB);
	}

	/**
	 * What the supervisor sees of its server's state machine: its state and process, and
	 * the starts and stops it asks for.
	 */
	interface Supervised {

		ServerState state();

		@Nullable StdioServerProcess process();

		/**
		 * Count the live processes of the server, as the endpoint counts them.
		 * @return the processes and their memory
		 */
		ProcessTree.Stats treeStats();

		/** Start the server if it is idle, or join its start under way. */
		void startIfIdle();

		/**
		 * Claim the stop of an idle server.
		 * @return the process to stop, or {@code null} when it may not be stopped now
		 */
		@Nullable StdioServerProcess claimIdleStop();

		/**
		 * Stop a running process that went over a resource limit.
		 * @param over the process
		 * @param cause the limit's exit cause
		 * @param reason the figures
		 */
		void stopOverLimit(StdioServerProcess over, ExitCause cause, String reason);

		/**
		 * Tell the server's listeners of a stop the supervisor made.
		 * @param result how it went
		 */
		void stopped(StopResult result);

	}

}

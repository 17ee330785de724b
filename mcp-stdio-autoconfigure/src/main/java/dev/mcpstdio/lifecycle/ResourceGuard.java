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

import java.util.Locale;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import dev.mcpstdio.core.ExitCause;
import dev.mcpstdio.core.StdioServerProcess;
import dev.mcpstdio.core.process.TreeStats;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.Limits;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Keeps a running server within its {@code max-memory} and {@code max-processes}: every
 * {@code resource-check-interval} it counts the server's processes and their resident
 * memory (as the endpoint does), off the request path, and stops a server over a limit
 * with one WARN naming the figures. The exit gets the cause
 * {@link ExitCause#MEMORY_LIMIT} or {@link ExitCause#PROCESS_LIMIT} and goes to the
 * restart policy like any failure.
 *
 * @author mcp-stdio authors
 */
final class ResourceGuard implements McpStdioServer.Listener {

	private static final Log logger = LogFactory.getLog(ResourceGuard.class);

	private static final long MB = 1024 * 1024;

	private final String serverName;

	private final ServerController controller;

	private final Limits limits;

	private final Supplier<TreeStats> census;

	private final ScheduledExecutorService scheduler;

	private final Executor tasks;

	private final AtomicReference<@Nullable ScheduledFuture<?>> checks = new AtomicReference<>();

	/** Set while a check (and the stop it may lead to) runs: checks never overlap. */
	private final AtomicBoolean checking = new AtomicBoolean();

	ResourceGuard(String serverName, ServerController controller, Limits limits, Supplier<TreeStats> census,
			ScheduledExecutorService scheduler, Executor tasks) {
		this.serverName = serverName;
		this.controller = controller;
		this.limits = limits;
		this.census = census;
		this.scheduler = scheduler;
		this.tasks = tasks;
	}

	@Override
	public void stateChanged(McpStdioServer server, ServerState state) {
		// Called under the controller's lock: schedules or cancels, never waits
		if (state == ServerState.RUNNING) {
			long interval = this.limits.checkInterval().toNanos();
			// The scheduler's one thread must not block: counting reads /proc
			ScheduledFuture<?> armed = this.scheduler.scheduleWithFixedDelay(() -> this.tasks.execute(this::check),
					interval, interval, TimeUnit.NANOSECONDS);
			cancel(this.checks.getAndSet(armed));
		}
		else {
			cancel(this.checks.getAndSet(null));
		}
	}

	private static void cancel(@Nullable ScheduledFuture<?> checks) {
		if (checks != null) {
			checks.cancel(false);
		}
	}

	/**
	 * Check the running process once and stop it when it is over a limit.
	 */
	void check() {
		if (!this.checking.compareAndSet(false, true)) {
			return;
		}
		try {
			StdioServerProcess current = this.controller.process();
			if (this.controller.state() != ServerState.RUNNING || current == null || !current.isRunning()) {
				return;
			}
			TreeStats stats = this.census.get();
			Integer maxProcesses = this.limits.maxProcesses();
			Long maxMemory = this.limits.maxMemoryBytes();
			String figures = stats.liveProcesses() + ((stats.liveProcesses() == 1) ? " process" : " processes")
					+ " using " + size(stats.memoryBytes()) + " of resident memory";
			ExitCause cause;
			String reason;
			if (maxProcesses != null && stats.liveProcesses() > maxProcesses) {
				cause = ExitCause.PROCESS_LIMIT;
				reason = figures + ", over max-processes " + maxProcesses;
			}
			else if (maxMemory != null && stats.memoryBytes() > maxMemory) {
				cause = ExitCause.MEMORY_LIMIT;
				reason = figures + ", over max-memory " + size(maxMemory);
			}
			else {
				return;
			}
			logger.warn("MCP server '" + this.serverName + "' (pid " + current.pid() + ") has " + reason
					+ "; stopping it (" + cause + ")");
			this.controller.stopOverLimit(current, cause, reason);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not check the resources of MCP server '" + this.serverName + "': " + ex);
		}
		finally {
			this.checking.set(false);
		}
	}

	static String size(long bytes) {
		if (bytes % MB == 0) {
			return (bytes / MB) + " MB";
		}
		return String.format(Locale.ROOT, "%.1f MB", (double) bytes / MB);
	}

}

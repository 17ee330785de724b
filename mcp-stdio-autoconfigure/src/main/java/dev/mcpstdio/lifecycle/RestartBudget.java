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
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.support.Waits;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;

/**
 * Counts the restarts of a server within its policy's window and schedules each.
 *
 * @author mcp-stdio authors
 */
final class RestartBudget {

	private static final Log logger = LogFactory.getLog(RestartBudget.class);

	private final String serverName;

	private final RestartPolicy policy;

	private final ScheduledExecutorService scheduler;

	private final LongSupplier nanoClock;

	/** When each restart within the window was scheduled, oldest first. */
	private final Deque<Long> recent = new ArrayDeque<>();

	private @Nullable ScheduledFuture<?> pending;

	RestartBudget(String serverName, RestartPolicy policy, ScheduledExecutorService scheduler, LongSupplier nanoClock) {
		this.serverName = serverName;
		this.policy = policy;
		this.scheduler = scheduler;
		this.nanoClock = nanoClock;
	}

	/**
	 * Count the next restart and return its backoff, unless the policy gives up.
	 * @return the backoff, or {@code null} when the server ended too often within the
	 * window and stays down
	 */
	synchronized @Nullable Duration nextBackoff() {
		long now = this.nanoClock.getAsLong();
		this.recent.removeIf((scheduled) -> now - scheduled > this.policy.window().toNanos());
		if (this.recent.size() >= this.policy.maxRestarts()) {
			logger.error(LogMessage.format("%s ended %d times within %s; giving up after %d restarts",
					McpStdioException.describe(this.serverName), this.recent.size() + 1,
					Waits.format(this.policy.window()), this.policy.maxRestarts()));
			return null;
		}
		Duration backoff = this.policy.backoff(this.recent.size() + 1);
		this.recent.addLast(now);
		logger.info(LogMessage.format("Restarting %s in %d ms (restart %d of at most %d within %s)",
				McpStdioException.describe(this.serverName), backoff.toMillis(), this.recent.size(),
				this.policy.maxRestarts(), Waits.format(this.policy.window())));
		return backoff;
	}

	/**
	 * Run a restart after its backoff, instead of any restart scheduled before.
	 * @param restart what to run; it must not block
	 * @param backoff the wait, from {@link #nextBackoff()}
	 */
	synchronized void schedule(Runnable restart, Duration backoff) {
		cancel();
		this.pending = this.scheduler.schedule(restart, backoff.toNanos(), TimeUnit.NANOSECONDS);
	}

	/** Forget the restart scheduled, if any: a stop or a start came first. */
	synchronized void cancel() {
		if (this.pending != null) {
			this.pending.cancel(false);
			this.pending = null;
		}
	}

}

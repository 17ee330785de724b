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

import java.util.concurrent.CompletableFuture;

import dev.mcpstdio.core.server.ExitCause;
import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.core.server.StdioServerProcess.StopResult;
import org.jspecify.annotations.Nullable;

/**
 * The stops of one server: an operator's, the lifecycle's, a client's giving up, an idle
 * stop, a stop over a resource limit, the last one. Each process is stopped and reported
 * once, never with the lock held; each change of the state is the state machine's.
 *
 * @author mcp-stdio authors
 */
final class ServerStops {

	private final ServerController controller;

	private final ServerStarts starts;

	private final ServerStatus status;

	private final Object lock;

	/** The process whose stop was begun and reported; guarded by the lock. */
	private @Nullable StdioServerProcess claimed;

	/**
	 * Create the stops of a server.
	 * @param controller its state machine
	 * @param starts its starts, which a stop cuts short
	 * @param lock the state machine's lock
	 */
	ServerStops(ServerController controller, ServerStarts starts, Object lock) {
		this.controller = controller;
		this.starts = starts;
		this.status = controller.status();
		this.lock = lock;
	}

	/**
	 * Give up on the server: stop what runs of it, cancel a pending restart, and leave it
	 * FAILED for the reason given. For a client that could not use it at start-up.
	 * @param reason why, as the endpoint shows it
	 */
	void giveUp(String reason) {
		StdioServerProcess current;
		synchronized (this.lock) {
			this.status.lastFailure(reason);
			if (this.status.state() == ServerState.FAILED) {
				return;
			}
			this.controller.notWanted();
			// a stop forgets the lifecycle's start; given up, the lifecycle's start, when
			// it has not begun yet, runs no process
			this.starts.stopped(CompletableFuture.completedFuture(null));
			current = this.status.process();
			boolean first = claim(current);
			// FAILED from now on, not STOPPING: whoever looks sees why
			this.controller.setState(ServerState.FAILED);
			if (!first) {
				return;
			}
		}
		this.controller.events().stopped(current.stop());
	}

	/**
	 * Stop the server: the contract's four bounded steps. No restart follows.
	 * @return how the stop went, or {@code null} when nothing was running
	 */
	@Nullable StopResult stopServer() {
		StdioServerProcess current;
		boolean first;
		synchronized (this.lock) {
			this.controller.notWanted();
			// A later lifecycle start begins afresh
			this.starts.stopped(null);
			if (this.status.state() == ServerState.IDLE) {
				// Its next message must not start it any more
				this.controller.setState(ServerState.STOPPED);
			}
			current = this.status.process();
			if (current == null) {
				return null;
			}
			// The lifecycle's stop and destroy() both come here (and overlap when the
			// phase timed out): the process is stopped and reported once
			first = claim(current);
			if (first && this.status.state() != ServerState.DISABLED) {
				this.controller.setState(ServerState.STOPPING);
			}
		}
		StopResult result = current.stop();
		if (!first) {
			return result;
		}
		synchronized (this.lock) {
			if (this.status.process() == current && this.status.state() == ServerState.STOPPING) {
				this.controller.setState(ServerState.STOPPED);
			}
			this.status.initialized(false);
		}
		this.controller.events().stopped(result);
		return result;
	}

	/**
	 * Begin the stop of an idle server: it is {@link ServerState#IDLE} from now on (its
	 * next message starts it again). The caller makes sure that no message is being sent.
	 * @return the process to stop, its stop told to the server's events, or {@code null}
	 * when the server does not run, is not initialized yet or a request is pending
	 */
	@Nullable StdioServerProcess claimIdleStop() {
		synchronized (this.lock) {
			StdioServerProcess current = this.status.process();
			// Not while its own handshake is under way either
			if (this.status.state() != ServerState.RUNNING || current == null || !current.isRunning()
					|| current.pendingRequests() > 0
					|| (this.controller.terms().selfInitialize() && !this.status.initialized())
					|| !current.prepareStop(ExitCause.IDLE, null)) {
				return null;
			}
			claim(current);
			this.controller.notWanted();
			this.status.initialized(false);
			this.controller.setState(ServerState.IDLE);
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
	void stopOverLimit(StdioServerProcess over, ExitCause cause, String reason) {
		synchronized (this.lock) {
			if (this.status.process() != over || this.status.state() != ServerState.RUNNING
					|| !over.prepareStop(cause, reason)) {
				return;
			}
		}
		this.controller.events().stopped(over.stop());
	}

	/**
	 * Stop the server for good: no start follows, whoever asks.
	 * @return how the stop went, or {@code null} when nothing was running
	 */
	@Nullable StopResult close() {
		this.starts.close();
		return stopServer();
	}

	/**
	 * Whether a process runs whose stop nobody claimed: a start has nothing to do. Called
	 * with the lock held.
	 * @return whether the current process runs unclaimed
	 */
	boolean runsUnclaimed() {
		StdioServerProcess current = this.status.process();
		return current != null && current.isRunning() && current != this.claimed;
	}

	/** Claim the stop of a process, so that it is stopped and reported once. */
	private boolean claim(@Nullable StdioServerProcess process) {
		boolean first = process != null && this.claimed != process;
		this.claimed = process;
		return first;
	}

}

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

import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.server.ExitCause;
import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.core.server.MessageListener;
import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.core.server.StdioServerProcess.StopResult;
import dev.mcpstdio.core.tree.ProcessTree;
import org.jspecify.annotations.Nullable;

/**
 * The state machine of one server: its state and each change of it, under one lock; the
 * exits it is told of and the restarts the policy asks for. What everyone reads of it is
 * its {@link ServerStatus}; its starts are run by {@link ServerStarts} and its stops by
 * {@link ServerStops}, each asking it for the change of state, and sends wait through the
 * starts in {@link StartTally}. Its processes' messages and ends go on to the server's
 * client side ({@link ServerConnection}), each end first told to the state machine.
 *
 * @author mcp-stdio authors
 */
final class ServerController implements UsageSupervisor.Supervised {

	// Each generation of the process replaces the previous one only once that one is
	// gone. No process is stopped while the lock is held, so a stop never waits behind a
	// start.

	private final McpStdioServerDefinition definition;

	private final ServerHost host;

	/** Whose marked processes count as this server's: none for an instance. */
	private final @Nullable String marked;

	private final Object lock = new Object();

	/** What everyone reads without the lock; its state changed here only, under it. */
	private final ServerStatus status;

	private final ClientTerms terms;

	private final ServerEvents events;

	private final RestartBudget restarts;

	/** The starts a send waits through, guarded by the lock. */
	private final StartTally tally;

	private final ServerStarts starts;

	private final ServerStops stops;

	/** Where the processes' messages and ends go on to: the client side. */
	private final MessageListener client;

	/** Whether the server should run: a launch sets it, a stop or a failure clears it. */
	private volatile boolean wantRunning;

	/**
	 * Create the state machine of a server.
	 * @param definition the server
	 * @param host what it shares with the other servers
	 * @param template the per-user server this is an instance of, else {@code null}
	 * @param client where the processes' messages and ends go on to
	 */
	ServerController(McpStdioServerDefinition definition, ServerHost host, @Nullable ServerController template,
			MessageListener client) {
		this.definition = definition;
		this.host = host;
		this.client = client;
		// an instance counts its own tree: its processes carry the server's name as all
		// the instances' do
		this.marked = (template != null) ? null : definition.name();
		this.restarts = new RestartBudget(definition.name(), definition.restart(), host.scheduler(), System::nanoTime);
		this.status = new ServerStatus(!definition.enabled() ? ServerState.DISABLED
				: (definition.demand().start() == StartMode.LAZY) ? ServerState.IDLE : ServerState.STOPPED);
		this.events = new ServerEvents((template != null) ? template.events : null);
		// what a client integration told the template holds for its instances
		this.terms = new ClientTerms((template != null) ? template.terms : null);
		this.tally = new StartTally(this.lock, this.status, this.terms, this.events);
		this.starts = new ServerStarts(this, definition, host, this.lock);
		this.stops = new ServerStops(this, this.starts, this.lock);
	}

	ServerStatus status() {
		return this.status;
	}

	ClientTerms terms() {
		return this.terms;
	}

	ServerEvents events() {
		return this.events;
	}

	StartTally tally() {
		return this.tally;
	}

	ServerStarts starts() {
		return this.starts;
	}

	ServerStops stops() {
		return this.stops;
	}

	// What the usage supervisor sees

	@Override
	public ServerState state() {
		return this.status.state();
	}

	@Override
	public @Nullable StdioServerProcess process() {
		return this.status.process();
	}

	/** Count the live processes of this server, every generation started by this JVM. */
	@Override
	public ProcessTree.Stats treeStats() {
		return this.host.count(this.marked, this.status.processes());
	}

	@Override
	public void startIfIdle() {
		this.starts.startIfIdle();
	}

	@Override
	public @Nullable StdioServerProcess claimIdleStop() {
		return this.stops.claimIdleStop();
	}

	@Override
	public void stopOverLimit(StdioServerProcess over, ExitCause cause, String reason) {
		this.stops.stopOverLimit(over, cause, reason);
	}

	@Override
	public void stopped(StopResult result) {
		this.events.stopped(result);
	}

	/**
	 * Record that the running process answered {@code initialize}: a client's handshake.
	 */
	void markInitialized() {
		this.status.initialized(true);
		this.tally.crashLoop(null);
	}

	/**
	 * Wait while the server is between processes: see {@link StartTally#awaitSettled}.
	 */
	void awaitSettled() {
		this.tally.awaitSettled(this.definition.spec().startupTimeout());
	}

	// The changes of state, each called with the lock held

	/**
	 * Change the state: the one place it changes. The sends waiting for a settled state
	 * look again, the usage supervisor and the listeners learn of it.
	 * @param newState the state
	 */
	void setState(ServerState newState) {
		ServerState old = this.status.state();
		this.status.state(newState);
		// sends waiting in awaitSettled() look again
		this.lock.notifyAll();
		if (old != newState) {
			// the usage supervisor first, then the listeners
			this.events.stateChanged(newState);
		}
	}

	/** The server failed: FAILED, and no restart until a start. */
	void failed() {
		this.wantRunning = false;
		setState(ServerState.FAILED);
	}

	/** A lazy server that is stopped waits for its first message: IDLE. */
	void idleUntilFirstMessage() {
		if (this.status.state() == ServerState.STOPPED) {
			setState(ServerState.IDLE);
		}
	}

	/** A launch begins: the server should run, and is STARTING. */
	void launching() {
		this.wantRunning = true;
		setState(ServerState.STARTING);
	}

	/**
	 * Whether the server should run: no stop or failure came since it was launched.
	 * @return whether it is wanted
	 */
	boolean wantsRunning() {
		return this.wantRunning;
	}

	/** A stop or an idle stop: the server should not run, and no restart is pending. */
	void notWanted() {
		this.wantRunning = false;
		this.restarts.cancel();
	}

	/**
	 * A start begins: a pending restart is forgotten.
	 * @return the previous generation's process, which the start stops first
	 */
	@Nullable StdioServerProcess replacing() {
		this.restarts.cancel();
		return this.status.process();
	}

	/**
	 * Where a generation's messages and end go: its end first to the state machine.
	 * @param generation the generation of the process about to start
	 * @return the listener of its process
	 */
	MessageListener routing(long generation) {
		return new GenerationRouting(generation, this, this.client);
	}

	// Exits, and the restarts the policy asks for

	/**
	 * A generation's process exited: a restart when the policy asks for one, else FAILED,
	 * unless it was stopped or is no longer the current one. Takes the lock.
	 * @param exitedGeneration its generation
	 * @param exit how it ended
	 */
	void exited(long exitedGeneration, ExitInfo exit) {
		synchronized (this.lock) {
			this.events.exited(exit);
			if (exitedGeneration != this.status.generation()) {
				return;
			}
			// a start whose process exited is over, whatever follows
			this.tally.end();
			// a process a restart ran that ended before it was initialized: a crash loop
			this.tally.crashLoop((!this.status.initialized() && exitedGeneration > 1) ? exit : null);
			this.status.initialized(false);
			ServerState state = this.status.state();
			if (state == ServerState.STOPPING || state == ServerState.STOPPED || state == ServerState.IDLE
					|| !this.wantRunning) {
				return;
			}
			if (this.definition.restart().shouldRestart(exit)) {
				scheduleRestart();
			}
			else {
				failed();
			}
		}
	}

	/**
	 * Called with the lock held: a restart after its backoff, unless the policy gives up.
	 */
	void scheduleRestart() {
		Duration backoff = this.restarts.nextBackoff();
		if (backoff == null) {
			failed();
			return;
		}
		// Listeners learn of the restart before its backoff starts to run
		this.tally.restartScheduled(backoff, this.definition.spec().startupTimeout());
		setState(ServerState.RESTARTING);
		// The scheduler's one thread must not block: the restart runs among the tasks
		this.restarts.schedule(() -> this.host.tasks().execute(this.starts::restart), backoff);
	}

}

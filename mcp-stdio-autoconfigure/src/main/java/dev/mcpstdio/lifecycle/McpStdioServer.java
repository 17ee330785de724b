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

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.server.ExitCause;
import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.core.server.StdioServerProcess.StopResult;
import dev.mcpstdio.core.tree.ProcessTree;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.util.Assert;

/**
 * One configured MCP server, managed with the application's lifecycle.
 *
 * @author mcp-stdio authors
 */
public class McpStdioServer implements SmartLifecycle, DisposableBean {

	/**
	 * The lifecycle phase: below the web server's start/stop phase
	 * ({@code WebServerApplicationContext.START_STOP_LIFECYCLE_PHASE}), so servers start
	 * before it and stop after it.
	 */
	public static final int PHASE = Integer.MAX_VALUE - 3072;

	private final McpStdioServerDefinition definition;

	private final ServerHost host;

	private final ServerConnection connection;

	private final ServerController controller;

	/** The instances of a per-user server, else {@code null}. */
	private final @Nullable UserInstances instances;

	private final ServerLifecycle lifecycle;

	/**
	 * Create a server.
	 * @param definition what to run and how
	 * @param host what it shares with the other servers: processes, threads, the guard
	 */
	public McpStdioServer(McpStdioServerDefinition definition, ServerHost host) {
		this(definition, host, null, null);
	}

	/**
	 * Create a server that may run one instance per user.
	 * @param definition what to run and how
	 * @param host what it shares with the other servers: processes, threads, the guard
	 * @param users who calls, for a per-user server
	 */
	public McpStdioServer(McpStdioServerDefinition definition, ServerHost host, @Nullable ServerUsers users) {
		this(definition, host, users, null);
	}

	/**
	 * A server, or an instance of the per-user server {@code template} (for
	 * {@link UserInstances}).
	 */
	McpStdioServer(McpStdioServerDefinition definition, ServerHost host, @Nullable ServerUsers users,
			@Nullable McpStdioServer template) {
		this.definition = definition;
		this.host = host;
		this.connection = new ServerConnection(definition, host, (template != null) ? template.connection : null);
		this.controller = this.connection.controller();
		this.instances = (definition.demand().perUser() != null) ? new UserInstances(this, host, users) : null;
		this.lifecycle = new ServerLifecycle(this, this.controller, this.instances);
	}

	/** The current processes: a per-user server's are those of its instances. */
	List<StdioServerProcess> processes() {
		return (this.instances != null) ? this.instances.processes() : this.controller.status().processes();
	}

	/**
	 * Return the server the calling user's messages go to: this one, unless it runs one
	 * instance per user; then the instance of the user authenticated on this thread,
	 * created on their first call. The instance is not held: a caller that sends to it
	 * holds it with {@link #lease(ServerUser)}.
	 * @return the server or the user's instance
	 * @throws McpStdioException if it runs one instance per user and no user is
	 * authenticated, or it has {@code max-instances} instances in use for longer than
	 * {@code instance-wait}
	 * @throws McpServerNotRunningException if it was stopped
	 */
	public McpStdioServer instance() {
		return (this.instances != null) ? this.instances.instance() : this;
	}

	/**
	 * Hold the instance of a user of this per-user server while calls go to it: it is
	 * never stopped to make room for another user's before the lease is closed. Past
	 * {@code max-instances}, waits up to {@code instance-wait} for an instance that
	 * nobody holds. A shared server's lease holds the server itself.
	 * @param user the user, as {@link #user()} told on the calling thread
	 * @return the lease, to be closed once the calls are over
	 * @throws McpStdioException naming the server and why when the user cannot have an
	 * instance (their values could not be resolved, {@code max-instances} after
	 * {@code instance-wait})
	 * @throws McpServerNotRunningException if the server was stopped
	 */
	public ServerLease lease(ServerUser user) {
		return (this.instances != null) ? this.instances.lease(user) : new ServerLease(this, null);
	}

	/**
	 * Refuse a call of a per-user server that has no user.
	 * @return the refusal, naming the server and why
	 */
	public McpStdioException noUser() {
		UserInstances perUser = this.instances;
		Assert.state(perUser != null, () -> McpStdioException.describe(name()) + " is shared, not per-user");
		return perUser.noUserRefusal();
	}

	/**
	 * Return the user authenticated on this thread, when this server runs one instance
	 * per user and there is one.
	 * @return the user or {@code null}
	 */
	public @Nullable ServerUser user() {
		return (this.instances != null) ? this.instances.user() : null;
	}

	/**
	 * Return the instances of a per-user server by the opaque keys of their users.
	 * @return the instances, least recently used first; none for a shared server
	 */
	public Map<String, McpStdioServer> instances() {
		return (this.instances != null) ? this.instances.snapshot() : Map.of();
	}

	/**
	 * Return when a message last went to or came from the server.
	 * @return the time
	 */
	public Instant lastUsed() {
		return this.connection.lastUsed();
	}

	public String name() {
		return this.definition.name();
	}

	/**
	 * Return what a client integration is handed to run its session over this server (the
	 * Spring AI transport, the per-request observations).
	 * @return the connection
	 */
	public ClientConnection clientConnection() {
		return this.connection;
	}

	public McpStdioServerDefinition definition() {
		return this.definition;
	}

	public ServerState state() {
		return this.controller.state();
	}

	/**
	 * Return whether the server was stopped for good: removed by a reload, its context
	 * closed, or, for an instance of a per-user server, gone.
	 * @return whether it is closed
	 */
	public boolean isClosed() {
		return this.lifecycle.isClosed();
	}

	/**
	 * Return whether the server is up: it runs, or, for a per-user server, it can start
	 * its users' instances.
	 * @return whether it is up
	 */
	public boolean isUp() {
		ServerState state = state();
		return state == ServerState.RUNNING || (this.instances != null && state == ServerState.IDLE);
	}

	/**
	 * Return whether the running process has answered MCP {@code initialize}.
	 * @return whether the server is initialized
	 */
	public boolean isInitialized() {
		return this.controller.status().isInitialized();
	}

	/**
	 * Return the current process, running or ended, or {@code null} before the first
	 * start.
	 * @return the process
	 */
	public @Nullable StdioServerProcess process() {
		return this.controller.process();
	}

	public long restarts() {
		return this.controller.events().restarts();
	}

	public long exits(ExitCause cause) {
		return this.controller.events().exits(cause);
	}

	public @Nullable ExitInfo lastExit() {
		return this.controller.events().lastExit();
	}

	/**
	 * Return why the last start failed when no process exit explains it (a command that
	 * cannot run, a handshake that timed out).
	 * @return the failure or {@code null}
	 */
	public @Nullable String lastFailure() {
		return this.controller.status().lastFailure();
	}

	public int pendingRequests() {
		return processes().stream().mapToInt(StdioServerProcess::pendingRequests).sum();
	}

	/**
	 * Count the live processes of this server, every generation started by this JVM.
	 * @return the live processes and their memory
	 */
	public ProcessTree.Stats treeStats() {
		return (this.instances != null) ? this.host.count(name(), this.instances.processes())
				: this.controller.treeStats();
	}

	public void addListener(ServerListener listener) {
		this.controller.events().addListener(listener, this);
	}

	/**
	 * Send a message to the running process.
	 * @param message one JSON-RPC message
	 * @param requestId its id when it is a request, else {@code null}
	 * @see StdioServerProcess#send(dev.mcpstdio.core.server.io.JsonRpcLine, Object)
	 */
	public void send(String message, @Nullable Object requestId) {
		if (this.instances != null) {
			this.instances.send(message, requestId);
			return;
		}
		this.connection.send(message, requestId);
	}

	/**
	 * Send a request and get its response.
	 * @param id the request id
	 * @param message the request
	 * @return the response future
	 * @see StdioServerProcess#request(Object, String)
	 */
	public CompletableFuture<String> request(Object id, String message) {
		return (this.instances != null) ? this.instances.request(id, message) : this.connection.request(id, message);
	}

	/**
	 * Start the server now and wait until it runs (and, when it performs the handshake
	 * itself, until it is initialized). Does nothing when it already runs; joins a start
	 * under way. Operators (the endpoint) and clients that connect call this.
	 * @throws McpServerNotRunningException if the server is disabled or a stop came first
	 * @throws McpStdioException if it could not start
	 */
	public void startServer() {
		if (this.instances != null && this.definition.enabled()) {
			// IDLE again: its instances start on their users' demand
			this.controller.starts().startInBackground();
			return;
		}
		this.controller.starts().startServer();
	}

	/**
	 * Begin the lifecycle's start in the background, for {@link McpStdioServers} to start
	 * every server in parallel before each one's {@link #start()} awaits its own.
	 * @return the start under way
	 */
	CompletableFuture<Void> startInBackground() {
		return this.controller.starts().startInBackground();
	}

	/**
	 * Stop the server: the contract's four bounded steps. No restart follows.
	 * @return how the stop went, or {@code null} when nothing was running
	 */
	public @Nullable StopResult stopServer() {
		StopResult result = this.controller.stops().stopServer();
		if (this.instances != null) {
			this.instances.stopAll();
		}
		return result;
	}

	/**
	 * Stop the server and start it again, counted as a restart; a per-user server stops
	 * its instances.
	 */
	public void restartServer() {
		stopServer();
		if (this.instances == null) {
			this.controller.events().restarted();
		}
		startServer();
	}

	// SmartLifecycle

	@Override
	public void start() {
		this.lifecycle.start();
	}

	@Override
	public void stop() {
		this.lifecycle.stop();
	}

	@Override
	public void stop(Runnable callback) {
		// Every server stops on a thread of its own: the phase lasts as long as the
		// slowest server, not the sum
		this.host.tasks().execute(() -> {
			try {
				stop();
			}
			finally {
				callback.run();
			}
		});
	}

	@Override
	public boolean isRunning() {
		return this.lifecycle.isRunning();
	}

	@Override
	public boolean isAutoStartup() {
		return this.definition.enabled();
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	@Override
	public void destroy() {
		this.lifecycle.destroy();
	}

	/**
	 * Return when the current process started, while the server is
	 * {@link ServerState#RUNNING}.
	 * @return the start time, or {@code null} in every other state
	 */
	public @Nullable Instant startedAt() {
		StdioServerProcess current = this.controller.process();
		return (current != null && state() == ServerState.RUNNING) ? current.startedAt() : null;
	}

	/**
	 * Return the pid of the running process.
	 * @return the pid or {@code null}
	 */
	public @Nullable Long pid() {
		StdioServerProcess current = this.controller.process();
		return (current != null && current.exitInfo() == null) ? current.pid() : null;
	}

	@Override
	public String toString() {
		return "McpStdioServer[" + name() + ", " + state() + "]";
	}

}

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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.ExitCause;
import dev.mcpstdio.core.ExitInfo;
import dev.mcpstdio.core.JsonRpcLine;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.StdioServerProcess;
import dev.mcpstdio.core.StdioServerProcess.StopResult;
import dev.mcpstdio.core.StdioServerSpec;
import dev.mcpstdio.core.process.ProcessTree;
import dev.mcpstdio.core.secrets.SecretValues;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.Demand;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.PerUser;
import dev.mcpstdio.lifecycle.RequestObserver.ObservedRequest;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;

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

	private static final Log logger = LogFactory.getLog(McpStdioServer.class);

	private final McpStdioServerDefinition definition;

	private final ServerHost host;

	private final ServerController controller;

	private volatile boolean lifecycleRunning;

	/** The instances of a per-user server, else {@code null}. */
	private final @Nullable UserInstances instances;

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
	public McpStdioServer(McpStdioServerDefinition definition, ServerHost host, @Nullable Users users) {
		this(definition, host, users, null);
	}

	/**
	 * A server, or an instance of a per-user server whose controller is {@code template}.
	 */
	private McpStdioServer(McpStdioServerDefinition definition, ServerHost host, @Nullable Users users,
			@Nullable ServerController template) {
		this.definition = definition;
		this.host = host;
		this.controller = new ServerController(definition, host, template);
		this.instances = (definition.demand().perUser() != null) ? new UserInstances(users) : null;
	}

	/** The current processes: a per-user server's are those of its instances. */
	List<StdioServerProcess> processes() {
		return (this.instances != null) ? this.instances.processes() : this.controller.processes();
	}

	/**
	 * Return the server the calling user's messages go to: this one, unless it runs one
	 * instance per user; then the instance of the user authenticated on this thread,
	 * created on their first call.
	 * @return the server or the user's instance
	 * @throws McpStdioException if it runs one instance per user and no user is
	 * authenticated, or it has {@code max-instances} instances in use
	 * @throws McpServerNotRunningException if it was stopped
	 */
	public McpStdioServer instance() {
		return (this.instances != null) ? this.instances.of(this.instances.current()) : this;
	}

	/**
	 * Return the user authenticated on this thread, when this server runs one instance
	 * per user and there is one.
	 * @return the user or {@code null}
	 */
	public @Nullable User user() {
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
		return this.controller.usage().lastUsed();
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
		return this.controller;
	}

	public McpStdioServerDefinition definition() {
		return this.definition;
	}

	public ServerState state() {
		return this.controller.state();
	}

	/**
	 * Return whether the running process has answered MCP {@code initialize}.
	 * @return whether the server is initialized
	 */
	public boolean isInitialized() {
		return this.controller.isInitialized();
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
		return this.controller.lastFailure();
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

	public void addListener(Listener listener) {
		this.controller.events().addListener(listener, this);
	}

	/**
	 * Send a message to the running process.
	 * @param message one JSON-RPC message
	 * @param requestId its id when it is a request, else {@code null}
	 * @see StdioServerProcess#send(dev.mcpstdio.core.JsonRpcLine, Object)
	 */
	public void send(String message, @Nullable Object requestId) {
		if (this.instances != null) {
			instance().send(message, requestId);
			return;
		}
		JsonRpcLine line = JsonRpcLine.of(message);
		RequestObserver observer = this.controller.requests();
		ObservedRequest observed = (requestId != null) ? observer.sending(requestId, line) : null;
		if (requestId == null) {
			observer.notifying(line);
		}
		JsonRpcLine sent = (observed != null) ? observed.message() : line;
		send(observed, (process) -> {
			process.send(sent, requestId);
			return null;
		});
	}

	/**
	 * Send a request and get its response.
	 * @param id the request id
	 * @param message the request
	 * @return the response future
	 * @see StdioServerProcess#request(Object, String)
	 */
	public CompletableFuture<String> request(Object id, String message) {
		if (this.instances != null) {
			return instance().request(id, message);
		}
		ObservedRequest observed = this.controller.requests().sending(id, JsonRpcLine.of(message));
		String line = (observed != null) ? observed.message().text() : message;
		CompletableFuture<JsonRpcLine> response;
		try {
			response = send(observed, (process) -> process.requestLine(id, line));
		}
		catch (McpStdioException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		response.whenComplete((answer, ex) -> {
			this.controller.usage().touch();
			if (observed != null) {
				observed.completed(answer, ex);
			}
		});
		CompletableFuture<String> text = response.thenApply(JsonRpcLine::text);
		// a caller that gives up (cancels) lets the request go
		text.whenComplete((answer, ex) -> response.cancel(false));
		return text;
	}

	/**
	 * Send through the usage supervisor; a failed send ends the request's observation.
	 */
	private <T> T send(@Nullable ObservedRequest observed, Function<StdioServerProcess, T> send) {
		try {
			return this.controller.usage().send(this.controller, send);
		}
		catch (RuntimeException ex) {
			if (observed != null) {
				observed.completed(null, ex);
			}
			throw ex;
		}
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
			this.controller.startInBackground();
			return;
		}
		this.controller.startServer();
	}

	/**
	 * Begin the lifecycle's start in the background, for {@link McpStdioServers} to start
	 * every server in parallel before each one's {@link #start()} awaits its own.
	 * @return the start under way
	 */
	CompletableFuture<Void> startInBackground() {
		return this.controller.startInBackground();
	}

	/**
	 * Stop the server: the contract's four bounded steps. No restart follows.
	 * @return how the stop went, or {@code null} when nothing was running
	 */
	public @Nullable StopResult stopServer() {
		StopResult result = this.controller.stopServer();
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
		if (!this.definition.enabled()) {
			return;
		}
		this.lifecycleRunning = true;
		try {
			// Await the start McpStdioServers began for all servers at once; starting
			// anew would run a server that failed fast a second time
			this.controller.awaitStart(startInBackground());
			if (!this.controller.isSelfInitialize() && this.definition.required()) {
				// A client performs the handshake later: at least the process must live
				StdioServerProcess current = this.controller.process();
				ExitInfo exit = (current != null) ? current.exitInfo() : null;
				if (exit != null) {
					throw exit.toException();
				}
			}
		}
		catch (RuntimeException ex) {
			if (this.definition.required()) {
				throw McpServerStartupException.required(name(), ex.getMessage(), ex);
			}
			logger.error("MCP server '" + name() + "' could not start and is FAILED (it is not required, so the "
					+ "application goes on): " + ex.getMessage());
		}
	}

	@Override
	public void stop() {
		ServerState before = state();
		try {
			StopResult result = stopServer();
			if ((result == null || !result.wasRunning()) && this.lifecycleRunning && before != ServerState.STOPPED
					&& before != ServerState.DISABLED && before != ServerState.IDLE) {
				// One line per server at shutdown, also for one that had ended before
				ExitInfo exit = lastExit();
				logger.info("MCP server '" + name() + "' had already ended (" + before + ")" + ((exit != null)
						? ": " + exit.cause() + ", exit code " + exit.describeExitCode() + " at " + exit.at() : ""));
			}
		}
		finally {
			this.lifecycleRunning = false;
		}
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
		return this.lifecycleRunning;
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
		// Also reached when start-up aborts before the lifecycle ran: nothing is left,
		// and nothing starts it again (nor any of its instances)
		this.controller.close();
		if (this.instances != null) {
			this.instances.stopAll();
		}
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

	/**
	 * Tells who calls a per-user server: a bean the application may replace.
	 */
	public interface Users {

		/**
		 * Return the user authenticated on the calling thread.
		 * @return the user, or {@code null} when there is none (or an anonymous one)
		 */
		@Nullable User current();

	}

	/**
	 * One user of per-user servers.
	 */
	public interface User {

		/**
		 * Return the key of the user's instances: opaque and stable, never their name or
		 * a token.
		 * @return the key
		 */
		String key();

		/**
		 * Resolve a server's {@code user-env} for this user, when their instance starts.
		 * @param server the server's name
		 * @param userEnv the variables and what they refer to, such as
		 * {@code oauth2:github}
		 * @return the variables and their values, all of them secret
		 * @throws McpStdioException naming the server and the variable when one cannot be
		 * resolved
		 */
		Map<String, String> env(String server, Map<String, String> userEnv);

	}

	/**
	 * Learns what happens to a server, for metrics and logs.
	 */
	public interface Listener {

		default void stateChanged(McpStdioServer server, ServerState state) {
		}

		default void stopped(McpStdioServer server, StopResult result) {
		}

		default void restarted(McpStdioServer server) {
		}

	}

	/**
	 * The instances of a per-user server: one per user, at most {@code max-instances}.
	 */
	private final class UserInstances {

		private final @Nullable Users users;

		private final PerUser perUser;

		/** By the users' keys, least recently used first; guarded by {@code this}. */
		private final Map<String, McpStdioServer> byKey = new LinkedHashMap<>(16, 0.75f, true);

		/**
		 * The users whose instance is being created, each with the lock their calls wait
		 * on.
		 */
		private final Map<String, Object> resolving = new ConcurrentHashMap<>();

		UserInstances(@Nullable Users users) {
			this.users = users;
			this.perUser = definition().demand().perUser();
		}

		@Nullable User user() {
			return (this.users != null) ? this.users.current() : null;
		}

		/**
		 * Return the user authenticated on this thread.
		 * @throws McpStdioException when there is none: never a shared or another user's
		 * instance in their place
		 */
		User current() {
			User user = user();
			if (user == null) {
				throw new McpStdioException(name(), "MCP server '" + name() + "' runs one instance per user "
						+ "(instances: per-user) and this call has no authenticated user ("
						+ ((this.users != null) ? "none, or an anonymous one" : "no Spring Security to tell one")
						+ "): it is refused, never sent to a shared or another user's instance");
			}
			return user;
		}

		/**
		 * Return a user's instance: the one they have, or a new one, with their
		 * {@code user-env} resolved now, in place of one that failed or was stopped (for
		 * being idle too). Beyond {@code max-instances} the least recently used instance
		 * without a request under way is stopped first.
		 */
		McpStdioServer of(User user) {
			String key = user.key();
			McpStdioServer found = instanceOf(key);
			if (found != null) {
				return found;
			}
			// one user's calls wait for one resolution of their values (a token may take
			// a round trip), other users' calls go on
			Object resolving = this.resolving.computeIfAbsent(key, (any) -> new Object());
			synchronized (resolving) {
				try {
					found = instanceOf(key);
					return (found != null) ? found : create(key, user.env(name(), this.perUser.userEnv()));
				}
				finally {
					this.resolving.remove(key, resolving);
				}
			}
		}

		private synchronized @Nullable McpStdioServer instanceOf(String key) {
			McpStdioServer found = this.byKey.get(key);
			return (found != null && usable(found)) ? found : null;
		}

		private McpStdioServer create(String key, Map<String, String> env) {
			List<McpStdioServer> ended = new ArrayList<>();
			McpStdioServer created;
			synchronized (this) {
				// the per-user server's own state: IDLE while it serves its users
				if (state() != ServerState.IDLE) {
					throw new McpServerNotRunningException(name(),
							"MCP server '" + name() + "' is " + state() + ": it starts no instance");
				}
				McpStdioServer found = this.byKey.get(key);
				if (found != null && usable(found)) {
					return found;
				}
				if (found != null) {
					ended.add(this.byKey.remove(key));
				}
				if (this.byKey.size() >= this.perUser.maxInstances()) {
					McpStdioServer idle = this.byKey.values()
						.stream()
						.filter(UserInstances::idle)
						.findFirst()
						.orElse(null);
					if (idle == null) {
						throw new McpStdioException(name(), "MCP server '" + name() + "' has " + this.byKey.size()
								+ " instances (max-instances), each with a request under way: the call is refused (raise "
								+ "mcp.stdio.servers." + name() + ".max-instances)");
					}
					logger.info("Stopping the least recently used instance of MCP server '" + name()
							+ "' for another user's (max-instances " + this.perUser.maxInstances() + ")");
					this.byKey.values().remove(idle);
					ended.add(idle);
				}
				created = newInstance(env);
				this.byKey.put(key, created);
			}
			ended.forEach(McpStdioServer::destroy);
			return created;
		}

		/** A new instance of the per-user server, with a user's values added. */
		private McpStdioServer newInstance(Map<String, String> userEnv) {
			StdioServerSpec spec = definition().spec();
			StdioServerSpec own = spec.withEnv(userEnv)
				.toBuilder()
				.secrets(spec.secrets().and(SecretValues.of(userEnv.values())))
				.build();
			Demand demand = new Demand(StartMode.LAZY, definition().demand().idleTimeout());
			return new McpStdioServer(new McpStdioServerDefinition(own, true, false, definition().restart(), demand,
					definition().limits()), McpStdioServer.this.host, null, McpStdioServer.this.controller);
		}

		/** Whether an instance serves its user's calls; else a new one replaces it. */
		private static boolean usable(McpStdioServer instance) {
			ServerState state = instance.state();
			return state != ServerState.FAILED && state != ServerState.STOPPED && state != ServerState.STOPPING
					&& (state != ServerState.IDLE || instance.process() == null);
		}

		private static boolean idle(McpStdioServer instance) {
			ServerState state = instance.state();
			return instance.pendingRequests() == 0 && state != ServerState.STARTING && state != ServerState.RESTARTING;
		}

		/**
		 * Stop every instance in parallel, each by the ordered stop and for good: a
		 * restart racing it starts nothing.
		 */
		void stopAll() {
			List<McpStdioServer> all;
			synchronized (this) {
				all = List.copyOf(this.byKey.values());
				this.byKey.clear();
			}
			CompletableFuture
				.allOf(all.stream()
					.map((instance) -> CompletableFuture.runAsync(instance::destroy, McpStdioServer.this.host.tasks()))
					.toArray(CompletableFuture[]::new))
				.join();
		}

		synchronized Map<String, McpStdioServer> snapshot() {
			return new LinkedHashMap<>(this.byKey);
		}

		synchronized List<StdioServerProcess> processes() {
			return this.byKey.values().stream().flatMap((instance) -> instance.processes().stream()).toList();
		}

	}

}

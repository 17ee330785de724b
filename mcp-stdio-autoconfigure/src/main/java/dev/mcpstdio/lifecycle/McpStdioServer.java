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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import dev.mcpstdio.McpServerStartupException;
import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.server.ExitCause;
import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.core.server.io.JsonRpcLine;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.core.server.StdioServerProcess.StopResult;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.core.tree.ProcessTree;
import dev.mcpstdio.core.secrets.SecretValues;
import dev.mcpstdio.core.support.Waits;
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

	/** Set once the server is stopped for good, its listeners told. */
	private final AtomicBoolean closed = new AtomicBoolean();

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
	 * created on their first call. The instance is not held: a caller that sends to it
	 * holds it with {@link #lease(User)}.
	 * @return the server or the user's instance
	 * @throws McpStdioException if it runs one instance per user and no user is
	 * authenticated, or it has {@code max-instances} instances in use for longer than
	 * {@code instance-wait}
	 * @throws McpServerNotRunningException if it was stopped
	 */
	public McpStdioServer instance() {
		if (this.instances == null) {
			return this;
		}
		try (Lease lease = this.instances.lease(this.instances.current())) {
			return lease.instance();
		}
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
	public Lease lease(User user) {
		return (this.instances != null) ? this.instances.lease(user) : new Lease(this, null);
	}

	/**
	 * Refuse a call of a per-user server that has no user.
	 * @return the refusal, naming the server and why
	 */
	public McpStdioException noUser() {
		return assertPerUser().noUserRefusal();
	}

	private UserInstances assertPerUser() {
		if (this.instances == null) {
			throw new IllegalStateException("MCP server '" + name() + "' is shared, not per-user");
		}
		return this.instances;
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
	 * Return whether the server was stopped for good: removed by a reload, its context
	 * closed, or, for an instance of a per-user server, gone.
	 * @return whether it is closed
	 */
	public boolean isClosed() {
		return this.closed.get();
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
	 * @see StdioServerProcess#send(dev.mcpstdio.core.server.io.JsonRpcLine, Object)
	 */
	public void send(String message, @Nullable Object requestId) {
		if (this.instances != null) {
			try (Lease lease = this.instances.lease(this.instances.current())) {
				lease.instance().send(message, requestId);
			}
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
			Lease lease = this.instances.lease(this.instances.current());
			CompletableFuture<String> answer;
			try {
				answer = lease.instance().request(id, message);
			}
			catch (RuntimeException ex) {
				lease.close();
				throw ex;
			}
			// held until answered: an instance with a request under way is never stopped
			// to make room
			answer.whenComplete((line, ex) -> lease.close());
			return answer;
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
		if (this.closed.compareAndSet(false, true)) {
			this.controller.events().closed();
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

		/**
		 * The server was stopped for good: removed by a reload, its context closed, or,
		 * for an instance of a per-user server, gone (idle, failed, or stopped to make
		 * room). What a listener keeps for it is to be let go.
		 * @param server the server
		 */
		default void closed(McpStdioServer server) {
		}

	}

	/**
	 * A caller's hold on the instance its calls go to: while any caller holds it, the
	 * instance is never stopped to make room for another user's. Closing it lets the
	 * instance go (once).
	 */
	public static final class Lease implements AutoCloseable {

		private final McpStdioServer instance;

		private final @Nullable Runnable release;

		private final AtomicBoolean closed = new AtomicBoolean();

		Lease(McpStdioServer instance, @Nullable Runnable release) {
			this.instance = instance;
			this.release = release;
		}

		/**
		 * Return the server or instance held.
		 * @return the instance
		 */
		public McpStdioServer instance() {
			return this.instance;
		}

		@Override
		public void close() {
			if (this.release != null && this.closed.compareAndSet(false, true)) {
				this.release.run();
			}
		}

	}

	/**
	 * The instances of a per-user server: one per user, at most {@code max-instances}. An
	 * instance that is gone (stopped for being idle, failed, stopped to make room) is
	 * removed at once: nothing of it stays reachable from here.
	 */
	private final class UserInstances {

		/** How long a call waiting for a free instance sleeps at most between looks. */
		private static final long RECHECK_NANOS = 50_000_000L;

		private final @Nullable Users users;

		private final PerUser perUser;

		/** By the users' keys, least recently used first; guarded by {@code this}. */
		private final Map<String, Slot> byKey = new LinkedHashMap<>(16, 0.75f, true);

		/**
		 * The users whose values are being resolved, each with the lock their calls wait
		 * on: one resolution per user at a time (a token may take a round trip).
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
				throw noUserRefusal();
			}
			return user;
		}

		McpStdioException noUserRefusal() {
			return new McpStdioException(name(),
					"MCP server '" + name() + "' runs one instance per user "
							+ "(instances: per-user) and this call has no authenticated user ("
							+ ((this.users != null) ? "none, or an anonymous one" : "no Spring Security to tell one")
							+ "): it is refused, never sent to a shared or another user's instance");
		}

		/**
		 * Hold a user's instance: the one they have, or a new one, with their
		 * {@code user-env} resolved now, in place of one that is gone. Beyond
		 * {@code max-instances} the least recently used instance that nobody holds and
		 * that is neither starting nor answering is stopped first; when there is none,
		 * the call waits for one up to {@code instance-wait}, then is refused.
		 */
		Lease lease(User user) {
			String key = user.key();
			long deadline = System.nanoTime() + this.perUser.instanceWait().toNanos();
			Lease found = held(key);
			if (found != null) {
				return found;
			}
			Map<String, String> env;
			Object resolving = this.resolving.computeIfAbsent(key, (any) -> new Object());
			synchronized (resolving) {
				try {
					found = held(key);
					if (found != null) {
						return found;
					}
					env = env(user);
				}
				finally {
					this.resolving.remove(key, resolving);
				}
			}
			return create(key, env, deadline);
		}

		/** Resolve a user's values: whatever the source throws says which server. */
		private Map<String, String> env(User user) {
			try {
				return user.env(name(), this.perUser.userEnv());
			}
			catch (McpStdioException ex) {
				throw ex;
			}
			catch (RuntimeException ex) {
				// the source's own message may hold what it resolves (a token, a vault
				// session): only the kind of failure is told, and the exception not kept
				throw new McpStdioException(name(),
						"MCP server '" + name() + "' cannot start an instance for the calling user: their user-env "
								+ "values could not be resolved (the source of the values, the McpStdioUsers bean or "
								+ "the OAuth2 client manager, threw " + ex.getClass().getName()
								+ "; its message is left out, as it may hold a secret)");
			}
		}

		private synchronized @Nullable Lease held(String key) {
			Slot slot = this.byKey.get(key);
			return (slot != null && usable(slot.instance)) ? slot.hold() : null;
		}

		private Lease create(String key, Map<String, String> env, long deadline) {
			List<McpStdioServer> ended = new ArrayList<>();
			Lease lease;
			try {
				synchronized (this) {
					while (true) {
						// the per-user server's own state: IDLE while it serves its users
						if (state() != ServerState.IDLE) {
							throw new McpServerNotRunningException(name(),
									"MCP server '" + name() + "' is " + state() + ": it starts no instance");
						}
						Slot found = this.byKey.get(key);
						if (found != null && usable(found.instance)) {
							return found.hold();
						}
						if (found != null) {
							// gone (failed, stopped): replaced, and stopped for good even
							// while a caller holds it (its call fails as it is)
							this.byKey.remove(key);
							ended.add(found.instance);
						}
						if (this.byKey.size() < this.perUser.maxInstances()) {
							break;
						}
						Slot free = this.byKey.values().stream().filter(Slot::free).findFirst().orElse(null);
						if (free != null) {
							logger.info("Stopping the least recently used instance of MCP server '" + name()
									+ "' for another user's (max-instances " + this.perUser.maxInstances() + ")");
							this.byKey.values().remove(free);
							ended.add(free.instance);
							break;
						}
						long remaining = deadline - System.nanoTime();
						if (remaining <= 0) {
							throw new McpStdioException(name(),
									"MCP server '" + name() + "' has " + this.byKey.size()
											+ " instances (max-instances " + this.perUser.maxInstances()
											+ "), all in use, and none was free within " + "instance-wait ("
											+ Waits.format(this.perUser.instanceWait())
											+ "): the call is refused (raise mcp.stdio.servers." + name()
											+ ".max-instances, or .instance-wait)");
						}
						// woken when a lease is let go or an instance leaves; looked at
						// again soon anyway: a request given up on ends just after
						TimeUnit.NANOSECONDS.timedWait(this, Math.min(remaining, RECHECK_NANOS));
					}
					Slot slot = new Slot(key, newInstance(env));
					this.byKey.put(key, slot);
					lease = slot.hold();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new McpStdioException(name(),
						"MCP server '" + name() + "': the wait for an instance was interrupted", ex);
			}
			finally {
				ended.forEach(this::destroyLater);
			}
			return lease;
		}

		/** Stop an instance that is gone from the map, not on the caller's thread. */
		private void destroyLater(McpStdioServer instance) {
			try {
				McpStdioServer.this.host.tasks().execute(instance::destroy);
			}
			catch (RuntimeException ex) {
				// the application is shutting down: stop it here
				instance.destroy();
			}
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

		/**
		 * An instance changed state: one that is gone (stopped for being idle, failed,
		 * stopped) leaves the map once nobody holds it.
		 */
		private void changed(Slot slot) {
			if (usable(slot.instance)) {
				return;
			}
			// told under the instance's lock: removed elsewhere
			try {
				McpStdioServer.this.host.tasks().execute(() -> removeIfGone(slot));
			}
			catch (RuntimeException ex) {
				removeIfGone(slot);
			}
		}

		private void removeIfGone(Slot slot) {
			synchronized (this) {
				if (slot.leases > 0 || usable(slot.instance) || this.byKey.get(slot.key) != slot) {
					return;
				}
				this.byKey.remove(slot.key);
				notifyAll();
			}
			slot.instance.destroy();
		}

		/** Whether an instance serves its user's calls; else a new one replaces it. */
		private static boolean usable(McpStdioServer instance) {
			ServerState state = instance.state();
			return state != ServerState.FAILED && state != ServerState.STOPPED && state != ServerState.STOPPING
					&& (state != ServerState.IDLE || instance.process() == null);
		}

		/**
		 * Stop every instance in parallel, each by the ordered stop and for good: a
		 * restart racing it starts nothing.
		 */
		void stopAll() {
			List<McpStdioServer> all;
			synchronized (this) {
				all = this.byKey.values().stream().map((slot) -> slot.instance).toList();
				this.byKey.clear();
				notifyAll();
			}
			CompletableFuture
				.allOf(all.stream()
					.map((instance) -> CompletableFuture.runAsync(instance::destroy, McpStdioServer.this.host.tasks()))
					.toArray(CompletableFuture[]::new))
				.join();
		}

		synchronized Map<String, McpStdioServer> snapshot() {
			Map<String, McpStdioServer> snapshot = new LinkedHashMap<>();
			this.byKey.forEach((key, slot) -> snapshot.put(key, slot.instance));
			return snapshot;
		}

		synchronized List<StdioServerProcess> processes() {
			return this.byKey.values().stream().flatMap((slot) -> slot.instance.processes().stream()).toList();
		}

		/** One user's instance and how many callers hold it; guarded by the map. */
		private final class Slot implements Listener {

			private final String key;

			private final McpStdioServer instance;

			private int leases;

			Slot(String key, McpStdioServer instance) {
				this.key = key;
				this.instance = instance;
				instance.addListener(this);
			}

			/** Called holding the map's lock. */
			Lease hold() {
				this.leases++;
				return new Lease(this.instance, this::release);
			}

			private void release() {
				boolean gone;
				synchronized (UserInstances.this) {
					this.leases--;
					UserInstances.this.notifyAll();
					gone = this.leases == 0 && !usable(this.instance);
				}
				if (gone) {
					removeIfGone(this);
				}
			}

			/**
			 * Called holding the map's lock: whether it may be stopped to make room:
			 * nobody holds it (a caller holds it through its requests, the gathering
			 * through its listing), and it is neither starting nor restarting. A request
			 * its caller gave up on does not hold it: the stop's drain does not wait for
			 * it either.
			 */
			boolean free() {
				ServerState state = this.instance.state();
				return this.leases == 0 && state != ServerState.STARTING && state != ServerState.RESTARTING;
			}

			@Override
			public void stateChanged(McpStdioServer server, ServerState state) {
				changed(this);
			}

		}

	}

}

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

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.core.secrets.SecretValues;
import dev.mcpstdio.core.support.Waits;
import dev.mcpstdio.lifecycle.McpStdioServer.User;
import dev.mcpstdio.lifecycle.McpStdioServer.Users;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.Demand;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.PerUser;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;
import org.springframework.util.Assert;

/**
 * The instances of a per-user server: one per user, at most {@code max-instances}. An
 * instance that is gone (stopped for being idle, failed, stopped to make room) is removed
 * at once: nothing of it stays reachable from here.
 *
 * @author mcp-stdio authors
 */
final class UserInstances {

	// Logged as the server's own messages
	private static final Log logger = LogFactory.getLog(McpStdioServer.class);

	/** How long a call waiting for a free instance sleeps at most between looks. */
	private static final long RECHECK_NANOS = 50_000_000L;

	/** The per-user server: the template of its instances. */
	private final McpStdioServer server;

	private final ServerHost host;

	private final @Nullable Users users;

	private final PerUser perUser;

	/** By the users' keys, least recently used first; guarded by {@code this}. */
	private final Map<String, Slot> byKey = new LinkedHashMap<>(16, 0.75f, true);

	/**
	 * The users whose values are being resolved, each with the lock their calls wait on:
	 * one resolution per user at a time (a token may take a round trip).
	 */
	private final Map<String, Object> resolving = new ConcurrentHashMap<>();

	UserInstances(McpStdioServer server, ServerHost host, @Nullable Users users) {
		this.server = server;
		this.host = host;
		this.users = users;
		PerUser perUser = server.definition().demand().perUser();
		Assert.state(perUser != null, "Not a per-user server");
		this.perUser = perUser;
	}

	private String name() {
		return this.server.name();
	}

	private McpStdioServerDefinition definition() {
		return this.server.definition();
	}

	private ServerState state() {
		return this.server.state();
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
				McpStdioException.describe(name()) + " runs one instance per user "
						+ "(instances: per-user) and this call has no authenticated user ("
						+ ((this.users != null) ? "none, or an anonymous one" : "no Spring Security to tell one")
						+ "): it is refused, never sent to a shared or another user's instance");
	}

	/**
	 * Hold a user's instance: the one they have, or a new one, with their
	 * {@code user-env} resolved now, in place of one that is gone. Beyond
	 * {@code max-instances} the least recently used instance that nobody holds and that
	 * is neither starting nor answering is stopped first; when there is none, the call
	 * waits for one up to {@code instance-wait}, then is refused.
	 */
	ServerLease lease(User user) {
		String key = user.key();
		long deadline = System.nanoTime() + this.perUser.instanceWait().toNanos();
		ServerLease found = held(key);
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

	/**
	 * Return the calling user's instance, not held.
	 * @return the instance
	 */
	McpStdioServer instance() {
		try (ServerLease lease = lease(current())) {
			return lease.instance();
		}
	}

	/**
	 * Send a message to the calling user's instance.
	 * @param message one JSON-RPC message
	 * @param requestId its id when it is a request, else {@code null}
	 */
	void send(String message, @Nullable Object requestId) {
		try (ServerLease lease = lease(current())) {
			lease.instance().send(message, requestId);
		}
	}

	/**
	 * Send a request to the calling user's instance, held until it is answered: an
	 * instance with a request under way is never stopped to make room.
	 * @param id the request id
	 * @param message the request
	 * @return the response future
	 */
	CompletableFuture<String> request(Object id, String message) {
		ServerLease lease = lease(current());
		CompletableFuture<String> answer;
		try {
			answer = lease.instance().request(id, message);
		}
		catch (RuntimeException ex) {
			lease.close();
			throw ex;
		}
		answer.whenComplete((line, ex) -> lease.close());
		return answer;
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
					McpStdioException.describe(name())
							+ " cannot start an instance for the calling user: their user-env "
							+ "values could not be resolved (the source of the values, the McpStdioUsers bean or "
							+ "the OAuth2 client manager, threw " + ex.getClass().getName()
							+ "; its message is left out, as it may hold a secret)");
		}
	}

	private synchronized @Nullable ServerLease held(String key) {
		Slot slot = this.byKey.get(key);
		return (slot != null && usable(slot.instance)) ? slot.hold() : null;
	}

	private ServerLease create(String key, Map<String, String> env, long deadline) {
		List<McpStdioServer> ended = new ArrayList<>();
		ServerLease lease;
		try {
			synchronized (this) {
				while (true) {
					// the per-user server's own state: IDLE while it serves its users
					if (state() != ServerState.IDLE) {
						throw new McpServerNotRunningException(name(),
								McpStdioException.describe(name()) + " is " + state() + ": it starts no instance");
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
						logger.info(LogMessage.format(
								"Stopping the least recently used instance of %s for another "
										+ "user's (max-instances %d)",
								McpStdioException.describe(name()), this.perUser.maxInstances()));
						this.byKey.values().remove(free);
						ended.add(free.instance);
						break;
					}
					long remaining = deadline - System.nanoTime();
					if (remaining <= 0) {
						throw new McpStdioException(name(),
								McpStdioException.describe(name()) + " has " + this.byKey.size()
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
					McpStdioException.describe(name()) + ": the wait for an instance was interrupted", ex);
		}
		finally {
			ended.forEach(this::destroyLater);
		}
		return lease;
	}

	/** Stop an instance that is gone from the map, not on the caller's thread. */
	private void destroyLater(McpStdioServer instance) {
		try {
			this.host.tasks().execute(instance::destroy);
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
		return new McpStdioServer(
				new McpStdioServerDefinition(own, true, false, definition().restart(), demand, definition().limits()),
				this.host, null, this.server);
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
			this.host.tasks().execute(() -> removeIfGone(slot));
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
	 * Stop every instance in parallel, each by the ordered stop and for good: a restart
	 * racing it starts nothing.
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
				.map((instance) -> CompletableFuture.runAsync(instance::destroy, this.host.tasks()))
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
	private final class Slot implements ServerListener {

		private final String key;

		private final McpStdioServer instance;

		private int leases;

		Slot(String key, McpStdioServer instance) {
			this.key = key;
			this.instance = instance;
			instance.addListener(this);
		}

		/** Called holding the map's lock. */
		ServerLease hold() {
			this.leases++;
			return new ServerLease(this.instance, this::release);
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
		 * Called holding the map's lock: whether it may be stopped to make room: nobody
		 * holds it (a caller holds it through its requests, the gathering through its
		 * listing), and it is neither starting nor restarting. A request its caller gave
		 * up on does not hold it: the stop's drain does not wait for it either.
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

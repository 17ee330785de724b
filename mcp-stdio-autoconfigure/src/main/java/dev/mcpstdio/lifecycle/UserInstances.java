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

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.server.StdioServerProcess;
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

	private final PerUser perUser;

	/** Who calls, and their values. */
	private final PerUserCallers callers;

	/** By the users' keys, least recently used first; guarded by {@code this}. */
	private final Map<String, InstanceSlot> byKey = new LinkedHashMap<>(16, 0.75f, true);

	/**
	 * The users whose values are being resolved, each with the lock their calls wait on:
	 * one resolution per user at a time (a token may take a round trip).
	 */
	private final Map<String, Object> resolving = new ConcurrentHashMap<>();

	UserInstances(McpStdioServer server, ServerHost host, @Nullable ServerUsers users) {
		this.server = server;
		this.host = host;
		PerUser perUser = server.definition().demand().perUser();
		Assert.state(perUser != null, "Not a per-user server");
		this.perUser = perUser;
		this.callers = new PerUserCallers(server.definition(), perUser, users);
	}

	private String name() {
		return this.server.name();
	}

	@Nullable ServerUser user() {
		return this.callers.user();
	}

	McpStdioException noUserRefusal() {
		return this.callers.noUserRefusal();
	}

	/**
	 * Hold a user's instance: the one they have, or a new one, with their
	 * {@code user-env} resolved now, in place of one that is gone. Beyond
	 * {@code max-instances} the least recently used instance that nobody holds and that
	 * is neither starting nor answering is stopped first; when there is none, the call
	 * waits for one up to {@code instance-wait}, then is refused.
	 */
	ServerLease lease(ServerUser user) {
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
				env = this.callers.env(user);
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
		try (ServerLease lease = lease(this.callers.current())) {
			return lease.instance();
		}
	}

	/**
	 * Send a message to the calling user's instance.
	 * @param message one JSON-RPC message
	 * @param requestId its id when it is a request, else {@code null}
	 */
	void send(String message, @Nullable Object requestId) {
		try (ServerLease lease = lease(this.callers.current())) {
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
		return lease(this.callers.current()).request(id, message);
	}

	private synchronized @Nullable ServerLease held(String key) {
		InstanceSlot slot = this.byKey.get(key);
		return (slot != null && slot.usable()) ? slot.hold() : null;
	}

	private ServerLease create(String key, Map<String, String> env, long deadline) {
		List<McpStdioServer> ended = new ArrayList<>();
		ServerLease lease;
		try {
			synchronized (this) {
				while (true) {
					// the per-user server's own state: IDLE while it serves its users
					if (this.server.state() != ServerState.IDLE) {
						throw this.callers.notServing(this.server.state());
					}
					InstanceSlot found = this.byKey.get(key);
					if (found != null && found.usable()) {
						return found.hold();
					}
					if (found != null) {
						// gone (failed, stopped): replaced, and stopped for good even
						// while a caller holds it (its call fails as it is)
						this.byKey.remove(key);
						ended.add(found.instance());
					}
					if (this.byKey.size() < this.perUser.maxInstances()) {
						break;
					}
					InstanceSlot free = this.byKey.values()
						.stream()
						.filter(InstanceSlot::free)
						.findFirst()
						.orElse(null);
					if (free != null) {
						logger.info(LogMessage.format(
								"Stopping the least recently used instance of %s for another "
										+ "user's (max-instances %d)",
								McpStdioException.describe(name()), this.perUser.maxInstances()));
						this.byKey.values().remove(free);
						ended.add(free.instance());
						break;
					}
					long remaining = deadline - System.nanoTime();
					if (remaining <= 0) {
						throw this.callers.allInUse(this.byKey.size());
					}
					// woken when a lease is let go or an instance leaves; looked at
					// again soon anyway: a request given up on ends just after
					TimeUnit.NANOSECONDS.timedWait(this, Math.min(remaining, RECHECK_NANOS));
				}
				InstanceSlot slot = new InstanceSlot(key, newInstance(env), this);
				this.byKey.put(key, slot);
				lease = slot.hold();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw this.callers.interrupted(ex);
		}
		finally {
			ended.forEach(this::destroyLater);
		}
		return lease;
	}

	/** Stop an instance that is gone from the map, not on the caller's thread. */
	private void destroyLater(McpStdioServer instance) {
		later(instance::destroy);
	}

	/** Run a task among the tasks, else, the application shutting down, here. */
	private void later(Runnable task) {
		try {
			this.host.tasks().execute(task);
		}
		catch (RuntimeException ex) {
			task.run();
		}
	}

	/** A new instance of the per-user server, with a user's values added. */
	private McpStdioServer newInstance(Map<String, String> userEnv) {
		return new McpStdioServer(this.callers.definitionFor(userEnv), this.host, null, this.server);
	}

	/**
	 * An instance changed state: one that is gone (stopped for being idle, failed,
	 * stopped) leaves the map once nobody holds it.
	 */
	void changed(InstanceSlot slot) {
		if (slot.usable()) {
			return;
		}
		// told under the instance's lock: removed elsewhere
		later(() -> removeIfGone(slot));
	}

	void removeIfGone(InstanceSlot slot) {
		synchronized (this) {
			if (slot.leases() > 0 || slot.usable() || this.byKey.get(slot.key()) != slot) {
				return;
			}
			this.byKey.remove(slot.key());
			notifyAll();
		}
		slot.instance().destroy();
	}

	/**
	 * Stop every instance in parallel, each by the ordered stop and for good: a restart
	 * racing it starts nothing.
	 */
	void stopAll() {
		List<McpStdioServer> all;
		synchronized (this) {
			all = this.byKey.values().stream().map((slot) -> slot.instance()).toList();
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
		this.byKey.forEach((key, slot) -> snapshot.put(key, slot.instance()));
		return snapshot;
	}

	synchronized List<StdioServerProcess> processes() {
		return this.byKey.values().stream().flatMap((slot) -> slot.instance().processes().stream()).toList();
	}

}

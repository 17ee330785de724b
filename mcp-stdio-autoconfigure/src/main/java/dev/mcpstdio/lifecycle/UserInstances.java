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

import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.StdioServerProcess;
import dev.mcpstdio.core.StdioServerSpec;
import dev.mcpstdio.core.secrets.SecretValues;
import dev.mcpstdio.lifecycle.McpStdioServer.User;
import dev.mcpstdio.lifecycle.McpStdioServer.Users;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.Demand;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.PerUser;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The instances of a per-user server: one per user, at most {@code max-instances}.
 *
 * @author mcp-stdio authors
 */
final class UserInstances {

	private static final Log logger = LogFactory.getLog(UserInstances.class);

	private final McpStdioServerDefinition definition;

	/** The per-user server's own controller: IDLE while it serves its users. */
	private final ServerController template;

	private final @Nullable Users users;

	private final ServerHost host;

	private final PerUser perUser;

	/** By the users' keys, least recently used first; guarded by {@code this}. */
	private final Map<String, McpStdioServer> byKey = new LinkedHashMap<>(16, 0.75f, true);

	/**
	 * The users whose instance is being created, each with the lock their calls wait on.
	 */
	private final Map<String, Object> resolving = new ConcurrentHashMap<>();

	UserInstances(McpStdioServerDefinition definition, ServerController template, @Nullable Users users,
			ServerHost host) {
		this.definition = definition;
		this.template = template;
		this.users = users;
		this.host = host;
		this.perUser = definition.demand().perUser();
	}

	private String name() {
		return this.definition.name();
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
			throw new McpStdioException(name(),
					"MCP server '" + name() + "' runs one instance per user "
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
		// one user's calls wait for one resolution of their values (a token may take a
		// round trip), other users' calls go on
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
			if (this.template.state() != ServerState.IDLE) {
				throw new McpServerNotRunningException(name(),
						"MCP server '" + name() + "' is " + this.template.state() + ": it starts no instance");
			}
			McpStdioServer found = this.byKey.get(key);
			if (found != null && usable(found)) {
				return found;
			}
			if (found != null) {
				ended.add(this.byKey.remove(key));
			}
			if (this.byKey.size() >= this.perUser.maxInstances()) {
				McpStdioServer idle = this.byKey.values().stream().filter(UserInstances::idle).findFirst().orElse(null);
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
		StdioServerSpec spec = this.definition.spec();
		StdioServerSpec own = spec.withEnv(userEnv)
			.toBuilder()
			.secrets(spec.secrets().and(SecretValues.of(userEnv.values())))
			.build();
		Demand demand = new Demand(StartMode.LAZY, this.definition.demand().idleTimeout());
		return new McpStdioServer(new McpStdioServerDefinition(own, true, false, this.definition.restart(), demand,
				this.definition.limits()), this.host, null, this.template);
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
	 * Stop every instance in parallel, each by the ordered stop and for good: a restart
	 * racing it starts nothing.
	 */
	void stopAll() {
		List<McpStdioServer> all;
		synchronized (this) {
			all = List.copyOf(this.byKey.values());
			this.byKey.clear();
		}
		CompletableFuture
			.allOf(all.stream()
				.map((instance) -> CompletableFuture.runAsync(instance::destroy, this.host.tasks()))
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

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

package dev.mcpstdio.ai;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;
import java.util.function.Consumer;

import dev.mcpstdio.ai.ToolGathering.Client;
import dev.mcpstdio.ai.ToolGathering.Customizers;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.ServerLease;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.lifecycle.ServerUser;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.mcp.McpConnectionInfo;
import org.springframework.ai.mcp.McpToolUtils;
import org.springframework.ai.tool.ToolCallback;

/**
 * The tools of a per-user server: the last tools any of its instances listed, offered to
 * every user, each call going to the instance of the user it was gathered for (or,
 * gathered without one, of the user calling). A user who cannot have an instance (no
 * user, no token, a failing source of values, {@code max-instances} after
 * {@code instance-wait}) is told why by the call, at once: the tools stay offered.
 *
 * @author mcp-stdio authors
 */
final class PerUserTools {

	private final McpStdioServer server;

	private final Customizers customizers;

	private final ToolAbsences absences;

	/** Makes the client of an instance, handing it what takes the tools it announces. */
	private final BiFunction<McpStdioServer, Consumer<List<Tool>>, Client> clients;

	/** The clients of the instances, each closed and forgotten with its instance. */
	private final Map<McpStdioServer, InstanceClient> byInstance = new ConcurrentHashMap<>();

	private volatile @Nullable List<Tool> tools;

	private volatile @Nullable McpConnectionInfo info;

	private volatile boolean stale;

	/** When a listing last failed, by {@link System#nanoTime()}. */
	private volatile long failedAt = System.nanoTime() - ToolAbsences.RETRY_NANOS;

	private final ReentrantLock listing = new ReentrantLock();

	/**
	 * Create the tools of a per-user server.
	 * @param server the per-user server
	 * @param customizers the application's say in the tools
	 * @param absences what tells why tools are left out
	 * @param clients makes the client of an instance
	 */
	PerUserTools(McpStdioServer server, Customizers customizers, ToolAbsences absences,
			BiFunction<McpStdioServer, Consumer<List<Tool>>, Client> clients) {
		this.server = server;
		this.customizers = customizers;
		this.absences = absences;
		this.clients = clients;
	}

	McpStdioServer server() {
		return this.server;
	}

	/**
	 * Whether its tools changed: the instance that lists next lists them again.
	 * @return whether they are stale
	 */
	boolean isStale() {
		return this.stale;
	}

	/** List the tools again when they are next asked for. */
	void invalidate() {
		this.stale = true;
	}

	List<ToolCallback> current() {
		ServerState state = this.server.state();
		if (state == ServerState.FAILED || state == ServerState.STOPPED || state == ServerState.STOPPING
				|| state == ServerState.DISABLED) {
			this.absences.tellLeftOut(this.server, null);
			return List.of();
		}
		ServerUser user = this.server.user();
		List<Tool> known = this.tools;
		if ((known == null || this.stale) && user != null) {
			known = listed(user, known);
		}
		McpConnectionInfo listedBy = this.info;
		if (known == null || listedBy == null) {
			return List.of();
		}
		this.absences.present(this.server);
		Customizers customizers = this.customizers;
		return known.stream()
			.filter((tool) -> customizers.filter().test(listedBy, tool))
			.<ToolCallback>map(
					(tool) -> new PerUserToolCallback(this, tool,
							McpToolUtils.createToolDefinition(customizers.prefixes().prefixedToolName(listedBy, tool),
									tool),
							user))
			.toList();
	}

	/**
	 * List the tools through the user's instance: no instance listed them yet (or they
	 * changed). One listing at a time: the callers of a server none of whose instances
	 * has listed its tools wait for the first (each listing bounded by
	 * {@code instance-wait} and the server's start) rather than each starting one.
	 */
	private @Nullable List<Tool> listed(ServerUser user, @Nullable List<Tool> known) {
		if (known != null) {
			// changed: one caller lists them again, the others offer the known ones
			if (!this.listing.tryLock()) {
				return known;
			}
		}
		else {
			this.listing.lock();
		}
		try {
			List<Tool> now = this.tools;
			if ((now != null && !this.stale)
					|| (now == null && System.nanoTime() - this.failedAt < ToolAbsences.RETRY_NANOS)) {
				// listed meanwhile, or the server failed to list them a moment ago
				return now;
			}
			ServerLease lease;
			try {
				lease = this.server.lease(user);
			}
			catch (RuntimeException ex) {
				// this user's refusal, not the server's failure: their call says why
				return now;
			}
			try (lease) {
				clientOf(lease.instance()).list();
			}
			catch (RuntimeException ex) {
				if (now == null) {
					this.failedAt = System.nanoTime();
					this.absences.tellLeftOut(this.server, ToolAbsences.messageOf(ex));
				}
			}
			return this.tools;
		}
		finally {
			this.listing.unlock();
		}
	}

	/** Take the tools an instance listed or announced. */
	void take(Client client, List<Tool> listed) {
		this.info = client.connection().get();
		this.tools = List.copyOf(listed);
		this.stale = false;
	}

	/**
	 * Return the client of an instance: made on its first call, closed and forgotten when
	 * the instance is gone.
	 */
	InstanceClient clientOf(McpStdioServer instance) {
		InstanceClient client = this.byInstance.get(instance);
		if (client != null) {
			return client;
		}
		client = this.byInstance.computeIfAbsent(instance, (key) -> new InstanceClient(this, key, this.clients));
		if (instance.isClosed()) {
			// closed meanwhile: its listener may have come too late
			forget(instance);
		}
		return client;
	}

	void forget(McpStdioServer instance) {
		InstanceClient client = this.byInstance.remove(instance);
		if (client != null) {
			client.close();
		}
	}

}

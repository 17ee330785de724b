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

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Supplier;

import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import io.modelcontextprotocol.spec.McpSchema;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.mcp.McpConnectionInfo;
import org.springframework.ai.mcp.McpToolFilter;
import org.springframework.ai.mcp.McpToolNamePrefixGenerator;
import org.springframework.ai.mcp.ToolContextToMcpMetaConverter;
import org.springframework.ai.tool.ToolCallback;

/**
 * The tools of Spring AI's MCP clients, gathered client by client.
 *
 * @author mcp-stdio authors
 */
public final class ToolGathering {

	private final Customizers customizers;

	private final ToolAbsences absences;

	private final McpStdioServers servers;

	/** Spring AI's clients at start-up. */
	private final List<ClientTools> initial;

	/** The tools of the per-user servers, by server. */
	private final Map<McpStdioServer, PerUserTools> perUser = new IdentityHashMap<>();

	/** Clients of servers that came later, made by {@link #later}. */
	private final Map<McpStdioServer, ClientTools> added = new IdentityHashMap<>();

	private final BiFunction<McpStdioServer, Consumer<List<Tool>>, Client> later;

	/**
	 * Gather the tools of some clients.
	 * @param clients Spring AI's clients, in the order their tools are listed
	 * @param servers the mcp-stdio servers
	 * @param later makes a client of a server none of Spring AI's clients serves (one
	 * added or changed by a reload), handing it what takes the tools it announces
	 * @param customizers the application's say in the tools
	 * @param leftOut which absences were told already
	 */
	ToolGathering(List<Client> clients, McpStdioServers servers,
			BiFunction<McpStdioServer, Consumer<List<Tool>>, Client> later, Customizers customizers, LeftOut leftOut) {
		this.customizers = customizers;
		this.absences = new ToolAbsences(leftOut);
		this.servers = servers;
		this.later = later;
		this.initial = clients.stream().map(this::initial).toList();
	}

	private ClientTools initial(Client client) {
		McpSchema.Implementation info = client.connection().get().clientInfo();
		String name = connectionOf(info, this.customizers.clientName());
		McpStdioServer server = (name != null) ? this.servers.find(name) : null;
		return new ClientTools(client, (name != null) ? name : String.valueOf(info.name()), server, this.customizers,
				this.absences);
	}

	/**
	 * Return the clients of the servers there are now: Spring AI's of the servers it was
	 * made for, and one of our own for each server that came later; those of servers that
	 * are gone are closed.
	 */
	private List<ClientTools> entries() {
		List<McpStdioServer> current = this.servers.list();
		Set<McpStdioServer> live = Collections.newSetFromMap(new IdentityHashMap<>());
		live.addAll(current);
		List<ClientTools> entries = new ArrayList<>();
		Set<McpStdioServer> served = Collections.newSetFromMap(new IdentityHashMap<>());
		for (ClientTools entry : this.initial) {
			if (entry.server() == null || live.contains(entry.server())) {
				entries.add(entry);
				served.add(entry.server());
			}
		}
		Set<McpStdioServer> later = Collections.newSetFromMap(new LinkedHashMap<>());
		for (McpStdioServer server : current) {
			// a per-user server's tools are gathered apart: see PerUserTools
			if (server.definition().demand().perUser() == null && server.definition().enabled()
					&& !served.contains(server)) {
				later.add(server);
			}
		}
		List<ClientTools> gone = new ArrayList<>();
		synchronized (this.added) {
			this.added.entrySet()
				.removeIf((added) -> !live.contains(added.getKey()) && !later.contains(added.getKey())
						&& gone.add(added.getValue()));
			for (McpStdioServer server : later) {
				entries.add(this.added.computeIfAbsent(server,
						(key) -> new ClientTools(this.later.apply(key, (tools) -> changed(key, tools)), key.name(), key,
								this.customizers, this.absences)));
			}
		}
		gone.forEach((entry) -> entry.client().close().run());
		return entries;
	}

	/**
	 * Return the clients made so far, making none: what a change of tools concerns,
	 * whatever thread (and user) it comes on.
	 */
	private List<ClientTools> known() {
		List<ClientTools> known = new ArrayList<>(this.initial);
		synchronized (this.added) {
			known.addAll(this.added.values());
		}
		return known;
	}

	/**
	 * Take the tools a client of our own announced.
	 * @param server the server it serves
	 * @param tools its tools now
	 */
	private void changed(McpStdioServer server, List<Tool> tools) {
		ClientTools entry;
		synchronized (this.added) {
			entry = this.added.get(server);
		}
		if (entry != null) {
			entry.take(tools);
		}
	}

	/**
	 * Return the connection (transport) name of a client: Spring AI names a client
	 * {@code <spring.ai.mcp.client.name> - <connection>} and titles it with the
	 * connection.
	 * @param info the client's info
	 * @param clientName {@code spring.ai.mcp.client.name}
	 * @return the connection name, or {@code null} when the info does not tell it
	 */
	static @Nullable String connectionOf(McpSchema.@Nullable Implementation info, String clientName) {
		if (info == null) {
			return null;
		}
		if (info.title() != null) {
			return info.title();
		}
		String prefix = clientName + " - ";
		return (info.name() != null && info.name().startsWith(prefix)) ? info.name().substring(prefix.length()) : null;
	}

	/**
	 * Return the tools of every client that can serve them now: no server that does not
	 * run or cannot list its tools makes the gathering, or another server's calls, fail.
	 * @return the tool callbacks, unique by name
	 */
	ToolCallback[] gather() {
		List<ToolCallback> all = new ArrayList<>();
		Set<String> names = new HashSet<>();
		for (ClientTools entry : entries()) {
			add(all, names, entry.connection(), entry.current());
		}
		for (PerUserTools tools : perUserTools()) {
			add(all, names, tools.server().name(), tools.current());
		}
		return all.toArray(new ToolCallback[0]);
	}

	private void add(List<ToolCallback> all, Set<String> names, String connection, List<ToolCallback> callbacks) {
		for (ToolCallback callback : callbacks) {
			String name = callback.getToolDefinition().name();
			if (names.add(name)) {
				all.add(callback);
			}
			else {
				this.absences.duplicate(connection, name);
			}
		}
	}

	/**
	 * Return the tools of the per-user servers there are now; those of servers that are
	 * gone are forgotten (their instances, and so their clients, are closed with them).
	 */
	private List<PerUserTools> perUserTools() {
		List<PerUserTools> tools = new ArrayList<>();
		synchronized (this.perUser) {
			Set<McpStdioServer> live = Collections.newSetFromMap(new IdentityHashMap<>());
			for (McpStdioServer server : this.servers.list()) {
				if (server.definition().demand().perUser() != null && server.definition().enabled()) {
					live.add(server);
					tools.add(this.perUser.computeIfAbsent(server,
							(key) -> new PerUserTools(key, this.customizers, this.absences, this.later)));
				}
			}
			this.perUser.keySet().retainAll(live);
		}
		return tools;
	}

	/** List every client's tools again at the next gathering. */
	void invalidate() {
		known().forEach(ClientTools::invalidate);
		synchronized (this.perUser) {
			this.perUser.values().forEach(PerUserTools::invalidate);
		}
	}

	/**
	 * Take the tools a client announced: its server said they changed, and the client
	 * listed them.
	 * @param connection the client's connection name
	 * @param tools its tools now
	 */
	void changed(String connection, List<Tool> tools) {
		known().stream().filter((entry) -> entry.connection().equals(connection)).forEach((entry) -> entry.take(tools));
	}

	/**
	 * One of Spring AI's MCP clients, sync or async, as the gathering uses it.
	 *
	 * @param connection what a filter and a name prefix generator learn of the client,
	 * its info among it
	 * @param tools lists the client's tools, blocking
	 * @param callback makes the callback of one of its tools, under a name
	 * @param close closes the client; the gathering closes only those it made, once their
	 * server is gone
	 */
	record Client(Supplier<McpConnectionInfo> connection, Supplier<List<Tool>> tools,
			BiFunction<Tool, String, ToolCallback> callback, Runnable close) {

	}

	/**
	 * The application's say in which tools are offered and how.
	 *
	 * @param filter which tools are offered
	 * @param prefixes how they are named
	 * @param meta what of a tool context reaches the server as {@code _meta}
	 * @param clientName {@code spring.ai.mcp.client.name}
	 */
	public record Customizers(McpToolFilter filter, McpToolNamePrefixGenerator prefixes,
			ToolContextToMcpMetaConverter meta, String clientName) {

	}

	/**
	 * Which absences of servers from the tool callbacks were told, shared with start-up.
	 */
	public static final class LeftOut {

		/** The process generation whose absence was told, by server. */
		private final Map<String, Long> told = new ConcurrentHashMap<>();

		/**
		 * Record an absence of a server: its current process generation.
		 * @param server the server
		 * @return whether it was not told yet
		 */
		boolean newAbsence(McpStdioServer server) {
			Long generation = server.clientConnection().generation();
			return !generation.equals(this.told.put(server.name(), generation));
		}

		/** The server lists its tools again: its next absence is told again. */
		void present(McpStdioServer server) {
			this.told.remove(server.name());
		}

	}

}

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
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Supplier;

import dev.mcpstdio.McpServerExitedException;
import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerLease;
import dev.mcpstdio.lifecycle.ServerListener;
import dev.mcpstdio.lifecycle.ServerState;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse.JSONRPCError;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import io.modelcontextprotocol.spec.McpSchema;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.mcp.McpConnectionInfo;
import org.springframework.ai.mcp.McpToolFilter;
import org.springframework.ai.mcp.McpToolNamePrefixGenerator;
import org.springframework.ai.mcp.McpToolUtils;
import org.springframework.ai.mcp.ToolContextToMcpMetaConverter;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.execution.ToolExecutionException;
import org.springframework.ai.tool.metadata.ToolMetadata;

/**
 * The tools of Spring AI's MCP clients, gathered client by client.
 *
 * @author mcp-stdio authors
 */
public final class ToolGathering {

	private static final Log logger = LogFactory.getLog(McpStdioClientTransport.class);

	/** How long a client whose listing failed is left out before it is asked again. */
	private static final long RETRY_NANOS = 5_000_000_000L;

	private final Customizers customizers;

	private final LeftOut leftOut;

	private final McpStdioServers servers;

	/** Spring AI's clients at start-up. */
	private final List<Entry> initial;

	/** The tools of the per-user servers, by server. */
	private final Map<McpStdioServer, PerUserTools> perUser = new IdentityHashMap<>();

	/** Clients of servers that came later, made by {@link #later}. */
	private final Map<McpStdioServer, Entry> added = new IdentityHashMap<>();

	private final BiFunction<McpStdioServer, Consumer<List<Tool>>, Client> later;

	private final Set<String> duplicatesTold = ConcurrentHashMap.newKeySet();

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
		this.leftOut = leftOut;
		this.servers = servers;
		this.later = later;
		this.initial = clients.stream().map(this::initial).toList();
	}

	private Entry initial(Client client) {
		McpSchema.Implementation info = client.connection().get().clientInfo();
		String name = connectionOf(info, this.customizers.clientName());
		McpStdioServer server = (name != null) ? this.servers.find(name) : null;
		return new Entry(client, (name != null) ? name : String.valueOf(info.name()), server);
	}

	/**
	 * Return the clients of the servers there are now: Spring AI's of the servers it was
	 * made for, and one of our own for each server that came later; those of servers that
	 * are gone are closed.
	 */
	private List<Entry> entries() {
		List<McpStdioServer> current = this.servers.list();
		Set<McpStdioServer> live = Collections.newSetFromMap(new IdentityHashMap<>());
		live.addAll(current);
		List<Entry> entries = new ArrayList<>();
		Set<McpStdioServer> served = Collections.newSetFromMap(new IdentityHashMap<>());
		for (Entry entry : this.initial) {
			if (entry.server == null || live.contains(entry.server)) {
				entries.add(entry);
				served.add(entry.server);
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
		List<Entry> gone = new ArrayList<>();
		synchronized (this.added) {
			this.added.entrySet()
				.removeIf((added) -> !live.contains(added.getKey()) && !later.contains(added.getKey())
						&& gone.add(added.getValue()));
			for (McpStdioServer server : later) {
				entries.add(this.added.computeIfAbsent(server,
						(key) -> new Entry(this.later.apply(key, (tools) -> changed(key, tools)), key.name(), key)));
			}
		}
		gone.forEach((entry) -> entry.client.close().run());
		return entries;
	}

	/**
	 * Return the clients made so far, making none: what a change of tools concerns,
	 * whatever thread (and user) it comes on.
	 */
	private List<Entry> known() {
		List<Entry> known = new ArrayList<>(this.initial);
		synchronized (this.added) {
			known.addAll(this.added.values());
		}
		return known;
	}

	/**
	 * Take the tools a client of our own announced.
	 * @param server the server (or the instance of a per-user server) it serves
	 * @param tools its tools now
	 */
	private void changed(McpStdioServer server, List<Tool> tools) {
		Entry entry;
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
		for (Entry entry : entries()) {
			add(all, names, entry.connection, entry.current());
		}
		for (PerUserTools tools : perUserTools()) {
			add(all, names, tools.server.name(), tools.current());
		}
		return all.toArray(new ToolCallback[0]);
	}

	private void add(List<ToolCallback> all, Set<String> names, String connection, List<ToolCallback> callbacks) {
		for (ToolCallback callback : callbacks) {
			String name = callback.getToolDefinition().name();
			if (names.add(name)) {
				all.add(callback);
			}
			else if (this.duplicatesTold.add(connection + "/" + name)) {
				logger.warn("MCP server '" + connection + "' offers a tool named '" + name
						+ "', a name another server's tool has already: it is left out (a "
						+ "McpToolNamePrefixGenerator bean can give the tools of each server names of their own)");
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
					tools.add(this.perUser.computeIfAbsent(server, PerUserTools::new));
				}
			}
			this.perUser.keySet().retainAll(live);
		}
		return tools;
	}

	/** List every client's tools again at the next gathering. */
	void invalidate() {
		known().forEach((entry) -> entry.stale = true);
		synchronized (this.perUser) {
			this.perUser.values().forEach((tools) -> tools.stale = true);
		}
	}

	/**
	 * Take the tools a client announced: its server said they changed, and the client
	 * listed them.
	 * @param connection the client's connection name
	 * @param tools its tools now
	 */
	void changed(String connection, List<Tool> tools) {
		known().stream().filter((entry) -> entry.connection.equals(connection)).forEach((entry) -> entry.take(tools));
	}

	/**
	 * Say, once per absence, that a server's tools are left out.
	 * @param server the server
	 * @param unlisted why it could not list its tools, or {@code null} when it does not
	 * run
	 */
	private void tellLeftOut(McpStdioServer server, @Nullable String unlisted) {
		if (!this.leftOut.newAbsence(server)) {
			return;
		}
		if (unlisted != null) {
			logger.warn("MCP server '" + server.name() + "' did not list its tools: they are left out of Spring AI's "
					+ "tool callbacks until it does (" + unlisted + ")");
			return;
		}
		// an operator's stop: STOPPING for the moment of the stop only
		ServerState state = (server.state() == ServerState.STOPPING) ? ServerState.STOPPED : server.state();
		String reason = reason(server);
		logger.warn("MCP server '" + server.name() + "' is " + state + ": its tools are left out of Spring AI's "
				+ "tool callbacks until it runs again" + ((reason != null) ? " (" + reason + ")" : ""));
	}

	/** Why a server does not run: its last failure or exit when it failed. */
	private static @Nullable String reason(McpStdioServer server) {
		if (server.state() != ServerState.FAILED) {
			return null;
		}
		String failure = server.lastFailure();
		ExitInfo exit = server.lastExit();
		return (failure != null) ? failure : (exit != null) ? exit.message() : null;
	}

	private static String messageOf(Throwable failure) {
		// the SDK wraps a failed initialize: the innermost message says why
		String message = String.valueOf(failure.getMessage());
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause.getMessage() != null) {
				message = cause.getMessage();
			}
		}
		return message;
	}

	/**
	 * The tools of a per-user server: the last tools any of its instances listed, offered
	 * to every user, each call going to the instance of the user it was gathered for (or,
	 * gathered without one, of the user calling). A user who cannot have an instance (no
	 * user, no token, a failing source of values, {@code max-instances} after
	 * {@code instance-wait}) is told why by the call, at once: the tools stay offered.
	 */
	private final class PerUserTools {

		private final McpStdioServer server;

		/** The clients of the instances, each closed and forgotten with its instance. */
		private final Map<McpStdioServer, InstanceClient> clients = new ConcurrentHashMap<>();

		private volatile @Nullable List<Tool> tools;

		private volatile @Nullable McpConnectionInfo info;

		private volatile boolean stale;

		/** When a listing last failed, by {@link System#nanoTime()}. */
		private volatile long failedAt = System.nanoTime() - RETRY_NANOS;

		private final ReentrantLock listing = new ReentrantLock();

		PerUserTools(McpStdioServer server) {
			this.server = server;
		}

		List<ToolCallback> current() {
			ServerState state = this.server.state();
			if (state == ServerState.FAILED || state == ServerState.STOPPED || state == ServerState.STOPPING
					|| state == ServerState.DISABLED) {
				tellLeftOut(this.server, null);
				return List.of();
			}
			McpStdioServer.User user = this.server.user();
			List<Tool> known = this.tools;
			if ((known == null || this.stale) && user != null) {
				known = listed(user, known);
			}
			McpConnectionInfo listedBy = this.info;
			if (known == null || listedBy == null) {
				return List.of();
			}
			ToolGathering.this.leftOut.present(this.server);
			Customizers customizers = ToolGathering.this.customizers;
			return known.stream()
				.filter((tool) -> customizers.filter().test(listedBy, tool))
				.<ToolCallback>map((tool) -> new PerUserToolCallback(this, tool,
						McpToolUtils.createToolDefinition(customizers.prefixes().prefixedToolName(listedBy, tool),
								tool),
						user))
				.toList();
		}

		/**
		 * List the tools through the user's instance: no instance listed them yet (or
		 * they changed). One listing at a time: the callers of a server none of whose
		 * instances has listed its tools wait for the first (each listing bounded by
		 * {@code instance-wait} and the server's start) rather than each starting one.
		 */
		private @Nullable List<Tool> listed(McpStdioServer.User user, @Nullable List<Tool> known) {
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
				if ((now != null && !this.stale) || (now == null && System.nanoTime() - this.failedAt < RETRY_NANOS)) {
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
						tellLeftOut(this.server, messageOf(ex));
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
		 * Return the client of an instance: made on its first call, closed and forgotten
		 * when the instance is gone.
		 */
		InstanceClient clientOf(McpStdioServer instance) {
			InstanceClient client = this.clients.get(instance);
			if (client != null) {
				return client;
			}
			client = this.clients.computeIfAbsent(instance, (key) -> new InstanceClient(this, key));
			if (instance.isClosed()) {
				// closed meanwhile: its listener may have come too late
				forget(instance);
			}
			return client;
		}

		void forget(McpStdioServer instance) {
			InstanceClient client = this.clients.remove(instance);
			if (client != null) {
				client.close();
			}
		}

	}

	/** The client of one instance of a per-user server. */
	private final class InstanceClient implements ServerListener {

		private final PerUserTools owner;

		private final McpStdioServer instance;

		private final Client client;

		/** The callbacks of its tools, by name. */
		private final Map<String, ToolCallback> callbacks = new ConcurrentHashMap<>();

		private volatile boolean listed;

		private volatile boolean closed;

		InstanceClient(PerUserTools owner, McpStdioServer instance) {
			this.owner = owner;
			this.instance = instance;
			this.client = ToolGathering.this.later.apply(instance, this::announced);
			instance.addListener(this);
		}

		private void announced(List<Tool> tools) {
			this.owner.take(this.client, tools);
		}

		/** Initialize the client and list its tools, once. */
		synchronized void list() {
			if (this.listed && !this.owner.stale) {
				return;
			}
			checkOpen();
			this.owner.take(this.client, this.client.tools().get());
			this.listed = true;
		}

		ToolCallback callback(Tool tool, String name) {
			return this.callbacks.computeIfAbsent(name,
					(key) -> new ExitTellingToolCallback(this.client.callback().apply(tool, key),
							this.instance.name()));
		}

		/**
		 * Whether the instance is gone or being stopped for good: a failure of its client
		 * then says so.
		 */
		boolean isClosed() {
			ServerState state = this.instance.state();
			return this.closed || this.instance.isClosed() || state == ServerState.STOPPING
					|| state == ServerState.STOPPED;
		}

		void checkOpen() {
			if (isClosed()) {
				throw stopped(null);
			}
		}

		McpServerNotRunningException stopped(@Nullable Throwable failure) {
			return new McpServerNotRunningException(this.instance.name(), "MCP server '" + this.instance.name()
					+ "': the calling user's instance was stopped (the server was stopped or reloaded) before it "
					+ "answered"
					+ ((failure != null) ? " ("
							+ this.instance.definition().spec().sanitize(String.valueOf(messageOf(failure))) + ")" : "")
					+ "; a new call starts a new instance");
		}

		void close() {
			this.closed = true;
			this.client.close().run();
		}

		@Override
		public void closed(McpStdioServer server) {
			this.owner.forget(server);
		}

	}

	/**
	 * A tool of a per-user server: each call holds its user's instance while it runs, and
	 * a refusal is the call's failure, which the model is told.
	 */
	private record PerUserToolCallback(PerUserTools tools, Tool tool, ToolDefinition definition,
			McpStdioServer.@Nullable User user) implements ToolCallback {

		@Override
		public ToolDefinition getToolDefinition() {
			return this.definition;
		}

		@Override
		public String call(String toolInput) {
			return call(toolInput, null);
		}

		@Override
		public String call(String toolInput, @Nullable ToolContext toolContext) {
			McpStdioServer server = this.tools.server;
			McpStdioServer.User caller = (this.user != null) ? this.user : server.user();
			if (caller == null) {
				throw new ToolExecutionException(this.definition, server.noUser());
			}
			ServerLease lease;
			try {
				lease = server.lease(caller);
			}
			catch (McpStdioException ex) {
				throw new ToolExecutionException(this.definition, ex);
			}
			try {
				InstanceClient client = this.tools.clientOf(lease.instance());
				try {
					client.list();
					return client.callback(this.tool, this.definition.name()).call(toolInput, toolContext);
				}
				catch (ToolExecutionException ex) {
					throw ex;
				}
				catch (McpStdioException ex) {
					throw new ToolExecutionException(this.definition, ex);
				}
				catch (RuntimeException ex) {
					// the instance could not start (the SDK wraps the failed initialize),
					// or a client closed with its instance before its session existed
					// failed inside the SDK: said as what happened
					McpStdioException why = client.isClosed() ? client.stopped(ex) : reason(ex, server.name());
					if (why != null) {
						throw new ToolExecutionException(this.definition, why);
					}
					throw ex;
				}
			}
			finally {
				lease.close();
			}
		}

	}

	/**
	 * Return what mcp-stdio said of a failure within a client's failure: its own
	 * exception, or its own JSON-RPC error (an exit, a start that failed).
	 */
	private static @Nullable McpStdioException reason(Throwable failure, String server) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof McpStdioException own) {
				return own;
			}
			JSONRPCError error = McpStdioClientTransport.ownError(cause, server);
			if (error != null) {
				return new McpStdioException(server, error.message());
			}
		}
		return null;
	}

	/** One client and the tools it listed last. */
	private final class Entry {

		private final Client client;

		private final String connection;

		private final @Nullable McpStdioServer server;

		private volatile @Nullable List<ToolCallback> callbacks;

		private volatile boolean stale = true;

		private volatile long failedAt;

		private volatile boolean failed;

		Entry(Client client, String connection, @Nullable McpStdioServer server) {
			this.client = client;
			this.connection = connection;
			this.server = server;
		}

		/**
		 * Return the client's tools now: none while its mcp-stdio server is
		 * {@code FAILED} or stopped (one WARN per absence), the last known while it is
		 * lazy or {@code IDLE} (a call starts it).
		 */
		List<ToolCallback> current() {
			List<ToolCallback> known = this.callbacks;
			if (this.server != null) {
				ServerState state = this.server.state();
				if (state == ServerState.FAILED || state == ServerState.STOPPED || state == ServerState.STOPPING
						|| state == ServerState.DISABLED) {
					tellLeftOut(this.server, null);
					return List.of();
				}
				if (known != null && state != ServerState.RUNNING) {
					// IDLE, or between two processes: its last known tools, and a call
					// starts it or waits for it
					return known;
				}
			}
			if (known != null && !this.stale) {
				return known;
			}
			if (this.failed && System.nanoTime() - this.failedAt < RETRY_NANOS) {
				return (known != null) ? known : List.of();
			}
			return list();
		}

		private synchronized List<ToolCallback> list() {
			List<ToolCallback> known = this.callbacks;
			if (known != null && !this.stale) {
				// listed by another caller meanwhile
				return known;
			}
			try {
				List<Tool> tools = this.client.tools().get();
				this.failed = false;
				if (this.server != null) {
					ToolGathering.this.leftOut.present(this.server);
				}
				return take(tools);
			}
			catch (RuntimeException ex) {
				this.failed = true;
				this.failedAt = System.nanoTime();
				if (this.server != null) {
					tellLeftOut(this.server, (this.server.state() == ServerState.FAILED) ? null : messageOf(ex));
				}
				else {
					logger
						.warn("The MCP client '" + this.connection + "' could not list its tools; they are left out of "
								+ "Spring AI's tool callbacks until it can: " + messageOf(ex));
				}
				return List.of();
			}
		}

		synchronized List<ToolCallback> take(List<Tool> tools) {
			McpConnectionInfo info = this.client.connection().get();
			Customizers customizers = ToolGathering.this.customizers;
			List<ToolCallback> callbacks = tools.stream()
				.filter((tool) -> customizers.filter().test(info, tool))
				.<ToolCallback>map((tool) -> new ExitTellingToolCallback(
						this.client.callback().apply(tool, customizers.prefixes().prefixedToolName(info, tool)),
						this.connection))
				.toList();
			this.callbacks = callbacks;
			this.stale = false;
			return callbacks;
		}

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

	/**
	 * A tool of an mcp-stdio server whose calls tell the model why the server could not
	 * answer.
	 */
	private record ExitTellingToolCallback(ToolCallback delegate, String server) implements ToolCallback {

		@Override
		public ToolDefinition getToolDefinition() {
			return this.delegate.getToolDefinition();
		}

		@Override
		public ToolMetadata getToolMetadata() {
			return this.delegate.getToolMetadata();
		}

		@Override
		public String call(String toolInput) {
			return call(toolInput, null);
		}

		@Override
		public String call(String toolInput, @Nullable ToolContext toolContext) {
			try {
				return this.delegate.call(toolInput, toolContext);
			}
			catch (McpError ex) {
				// Spring AI rethrows every JSON-RPC error as a hard failure of the chat:
				// the errors mcp-stdio makes for an exit become a failure of the tool
				// call, which the model is told
				JSONRPCError own = McpStdioClientTransport.ownError(ex, this.server);
				if (own == null) {
					throw ex;
				}
				throw new ToolExecutionException(getToolDefinition(), exceptionOf(own));
			}
		}

		/** The server's exit, or its stop, as an exception. */
		private McpStdioException exceptionOf(JSONRPCError error) {
			Map<?, ?> data = (Map<?, ?>) error.data();
			if (!(data.get("exitCode") instanceof Number code)) {
				return new McpStdioException(this.server, error.message());
			}
			List<String> tail = (data.get("stderrTail") instanceof List<?> lines)
					? lines.stream().map(String::valueOf).toList() : List.of();
			return new McpServerExitedException(this.server, code.intValue(), tail, error.message());
		}

		@Override
		public String toString() {
			return this.delegate.toString();
		}

	}

}

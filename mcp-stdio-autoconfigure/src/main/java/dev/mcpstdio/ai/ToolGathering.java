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
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import dev.mcpstdio.McpServerExitedException;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.ExitInfo;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.mcp.McpConnectionInfo;
import org.springframework.ai.mcp.McpToolFilter;
import org.springframework.ai.mcp.McpToolNamePrefixGenerator;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.execution.ToolExecutionException;
import org.springframework.ai.tool.metadata.ToolMetadata;

/**
 * The tools of every MCP client, gathered client by client.
 * <p>
 * A client whose mcp-stdio server is {@code FAILED} or stopped is left out, with one WARN
 * per absence, until it runs again; one that cannot list its tools is left out too, so
 * that no server makes the gathering, or another server's calls, fail. A lazy or
 * {@code IDLE} server keeps its last known tools (a call starts it).
 *
 * @param <C> the client type, sync or async
 * @author mcp-stdio authors
 */
final class ToolGathering<C> {

	private static final Log logger = LogFactory.getLog(McpStdioClientTransport.class);

	/** How long a client whose listing failed is left out before it is asked again. */
	private static final long RETRY_NANOS = 5_000_000_000L;

	private final List<Entry> entries = new ArrayList<>();

	private final Map<C, Entry> byClient = new IdentityHashMap<>();

	private final Clients<C> clients;

	private final McpToolFilter filter;

	private final McpToolNamePrefixGenerator prefixes;

	private final LeftOut leftOut;

	private final Set<String> duplicatesTold = ConcurrentHashMap.newKeySet();

	/**
	 * Gather the tools of some clients.
	 * @param all the clients, in the order their tools are listed
	 * @param clients what a client is and does
	 * @param servers the mcp-stdio servers, or {@code null} when there are none
	 * @param customizers the application's filter and name prefix generator
	 * @param leftOut which absences were told already
	 */
	ToolGathering(List<C> all, Clients<C> clients, @Nullable McpStdioServers servers, Customizers customizers,
			LeftOut leftOut) {
		this.clients = clients;
		this.filter = customizers.filter();
		this.prefixes = customizers.prefixes();
		this.leftOut = leftOut;
		String clientName = customizers.clientName();
		for (C client : all) {
			McpSchema.Implementation info = clients.info().apply(client);
			String connection = connectionOf(info, clientName);
			McpStdioServer server = (servers != null && connection != null) ? servers.find(connection) : null;
			Entry entry = new Entry(client, (connection != null) ? connection : String.valueOf(info.name()), server);
			this.entries.add(entry);
			this.byClient.put(client, entry);
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
	 * Return the tools of every client that can serve them now.
	 * @return the tool callbacks, unique by name
	 */
	ToolCallback[] gather() {
		List<ToolCallback> all = new ArrayList<>();
		Set<String> names = new HashSet<>();
		for (Entry entry : this.entries) {
			for (ToolCallback callback : entry.current()) {
				String name = callback.getToolDefinition().name();
				if (names.add(name)) {
					all.add(callback);
				}
				else if (this.duplicatesTold.add(entry.connection + "/" + name)) {
					logger.warn("MCP server '" + entry.connection + "' offers a tool named '" + name
							+ "', a name another server's tool has already: it is left out (a "
							+ "McpToolNamePrefixGenerator bean can give the tools of each server names of their own)");
				}
			}
		}
		return all.toArray(new ToolCallback[0]);
	}

	/** List every client's tools again at the next gathering. */
	void invalidate() {
		for (Entry entry : this.entries) {
			entry.stale = true;
		}
	}

	/**
	 * Take the tools a client announced: its server said they changed, and the client
	 * listed them.
	 * @param connection the client's connection name
	 * @param tools its tools now
	 */
	void changed(String connection, List<Tool> tools) {
		for (Entry entry : this.entries) {
			if (entry.connection.equals(connection)) {
				entry.take(tools);
			}
		}
	}

	/**
	 * Return whether a client is one of this gathering's.
	 * @param client the client
	 * @return whether its tools are gathered here
	 */
	boolean gathers(Object client) {
		return this.byClient.containsKey(client);
	}

	/** One client and the tools it listed last. */
	private final class Entry {

		private final C client;

		private final String connection;

		private final @Nullable McpStdioServer server;

		private volatile @Nullable List<ToolCallback> callbacks;

		private volatile boolean stale = true;

		private volatile long failedAt;

		private volatile boolean failed;

		Entry(C client, String connection, @Nullable McpStdioServer server) {
			this.client = client;
			this.connection = connection;
			this.server = server;
		}

		List<ToolCallback> current() {
			McpStdioServer own = this.server;
			List<ToolCallback> known = this.callbacks;
			if (own != null) {
				ServerState state = own.state();
				if (isAway(state)) {
					ToolGathering.this.leftOut.tell(own, reason(own));
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
				List<Tool> tools = ToolGathering.this.clients.list().apply(this.client);
				this.failed = false;
				if (this.server != null) {
					ToolGathering.this.leftOut.present(this.server);
				}
				return take(tools);
			}
			catch (RuntimeException ex) {
				this.failed = true;
				this.failedAt = System.nanoTime();
				McpStdioServer own = this.server;
				if (own != null && own.state() == ServerState.FAILED) {
					ToolGathering.this.leftOut.tell(own, reason(own));
				}
				else if (own != null) {
					ToolGathering.this.leftOut.tellUnlisted(own, messageOf(ex));
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
			McpConnectionInfo info = ToolGathering.this.clients.connection().apply(this.client);
			List<ToolCallback> built = new ArrayList<>(tools.size());
			for (Tool tool : tools) {
				if (ToolGathering.this.filter.test(info, tool)) {
					String name = ToolGathering.this.prefixes.prefixedToolName(info, tool);
					built.add(new ExitTellingToolCallback(
							ToolGathering.this.clients.callbacks().of(this.client, tool, name), this.connection));
				}
			}
			List<ToolCallback> callbacks = List.copyOf(built);
			this.callbacks = callbacks;
			this.stale = false;
			return callbacks;
		}

	}

	private static boolean isAway(ServerState state) {
		return state == ServerState.FAILED || state == ServerState.STOPPED || state == ServerState.STOPPING
				|| state == ServerState.DISABLED;
	}

	/** Why a server does not run: its last failure or exit when it failed. */
	static @Nullable String reason(McpStdioServer server) {
		if (server.state() != ServerState.FAILED) {
			return null;
		}
		String failure = server.lastFailure();
		if (failure != null) {
			return failure;
		}
		ExitInfo exit = server.lastExit();
		return (exit != null) ? exit.message() : null;
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
	 * What the gathering needs of a client type.
	 *
	 * @param <C> the client type
	 * @param info the client's info
	 * @param connection what a filter and a name prefix generator learn of the client
	 * @param list lists the client's tools, blocking
	 * @param callbacks makes a tool's callback
	 */
	record Clients<C>(Function<C, McpSchema.Implementation> info, Function<C, McpConnectionInfo> connection,
			Function<C, List<Tool>> list, Callbacks<C> callbacks) {

		static McpConnectionInfo connectionInfo(McpSchema.ClientCapabilities capabilities,
				McpSchema.Implementation info, McpSchema.@Nullable InitializeResult initialized) {
			return McpConnectionInfo.builder()
				.clientCapabilities(capabilities)
				.clientInfo(info)
				.initializeResult(initialized)
				.build();
		}

	}

	/**
	 * Makes the callback of one tool of a client.
	 *
	 * @param <C> the client type
	 */
	interface Callbacks<C> {

		ToolCallback of(C client, Tool tool, String prefixedName);

	}

	/**
	 * The application's say in which tools are offered and how they are named.
	 *
	 * @param filter which tools are offered
	 * @param prefixes how they are named
	 * @param clientName {@code spring.ai.mcp.client.name}
	 */
	record Customizers(McpToolFilter filter, McpToolNamePrefixGenerator prefixes, String clientName) {

	}

	/**
	 * A tool of an mcp-stdio server whose calls tell the model why the server could not
	 * answer: Spring AI rethrows every JSON-RPC error as a hard failure of the chat, so
	 * the errors mcp-stdio makes for an exit become a failure of the tool call, which the
	 * model is told.
	 */
	private static final class ExitTellingToolCallback implements ToolCallback {

		private final ToolCallback delegate;

		private final String server;

		ExitTellingToolCallback(ToolCallback delegate, String server) {
			this.delegate = delegate;
			this.server = server;
		}

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
				McpStdioException own = ownOf(ex);
				if (own == null) {
					throw ex;
				}
				throw new ToolExecutionException(getToolDefinition(), own);
			}
		}

		/** The error mcp-stdio made for the server (its exit, its stop), or null. */
		private @Nullable McpStdioException ownOf(McpError error) {
			McpSchema.JSONRPCResponse.JSONRPCError rpc = error.getJsonRpcError();
			if (rpc == null || !(rpc.data() instanceof Map<?, ?> data)
					|| !this.server.equals(data.get(McpStdioClientTransport.OWN_ERROR_SERVER))) {
				return null;
			}
			if (!(data.get("exitCode") instanceof Number code)) {
				return new McpStdioException(this.server, rpc.message());
			}
			List<String> tail = new ArrayList<>();
			if (data.get("stderrTail") instanceof List<?> lines) {
				lines.forEach((line) -> tail.add(String.valueOf(line)));
			}
			return new McpServerExitedException(this.server, code.intValue(), tail, rpc.message());
		}

		@Override
		public String toString() {
			return this.delegate.toString();
		}

	}

}

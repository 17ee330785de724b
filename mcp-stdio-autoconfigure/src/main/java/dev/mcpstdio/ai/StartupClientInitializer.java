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
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Function;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.ExitInfo;
import dev.mcpstdio.core.StdioServerProcess;
import dev.mcpstdio.lifecycle.McpServerStartupException;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.mcp.client.common.autoconfigure.properties.McpClientCommonProperties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Initializes Spring AI's MCP clients at start-up in Spring AI's place, in parallel.
 * <p>
 * Each is bounded by its server's {@code startup-timeout}: a {@code required} server that
 * cannot start fails start-up with {@link McpServerStartupException}; any other is
 * {@code FAILED}, with one WARN, and its client stays, uninitialized, failing every call
 * with the reason until the server runs again. Every other transport's client is
 * initialized as Spring AI would.
 *
 * @author mcp-stdio authors
 */
final class StartupClientInitializer implements BeanPostProcessor {

	static final String SYNC_CLIENTS = "mcpSyncClients";

	static final String ASYNC_CLIENTS = "mcpAsyncClients";

	private static final Log logger = LogFactory.getLog(StartupClientInitializer.class);

	private final ObjectProvider<McpStdioServers> servers;

	private final ObjectProvider<ServingWindow> window;

	private final ObjectProvider<LeftOut> leftOut;

	private @Nullable McpClientCommonProperties properties;

	/** What {@code spring.ai.mcp.client.initialized} said, once its bean was seen. */
	private @Nullable Boolean initializeAll;

	StartupClientInitializer(ObjectProvider<McpStdioServers> servers, ObjectProvider<ServingWindow> window,
			ObjectProvider<LeftOut> leftOut) {
		this.servers = servers;
		this.window = window;
		this.leftOut = leftOut;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof McpClientCommonProperties common && this.properties == null) {
			// Bound by now: Spring AI's client beans read it next. With initialized=true
			// Spring AI initializes each client in the bean method that builds them all,
			// where one failure ends start-up: so they are built uninitialized, and
			// initialized below in Spring AI's order
			this.properties = common;
			this.initializeAll = common.isInitialized();
			common.setInitialized(false);
			return bean;
		}
		if (SYNC_CLIENTS.equals(beanName) && bean instanceof List<?> clients) {
			return initialize(clients, McpSyncClient.class, McpSyncClient::getClientInfo, McpSyncClient::initialize);
		}
		if (ASYNC_CLIENTS.equals(beanName) && bean instanceof List<?> clients) {
			return initialize(clients, McpAsyncClient.class, McpAsyncClient::getClientInfo,
					(client) -> client.initialize().block());
		}
		return bean;
	}

	private <C> List<?> initialize(List<?> clients, Class<C> type, Function<C, McpSchema.Implementation> clientInfo,
			Consumer<C> initialize) {
		Boolean all = this.initializeAll;
		McpClientCommonProperties common = this.properties;
		if (all == null || common == null) {
			// Spring AI's properties were created before this could see them
			return clients;
		}
		common.setInitialized(all);
		// mcp-stdio's clients first, all at once
		Map<Object, CompletableFuture<Boolean>> initializing = new IdentityHashMap<>();
		for (Object candidate : clients) {
			if (type.isInstance(candidate)) {
				C client = type.cast(candidate);
				McpStdioServer server = serverOf(clientInfo.apply(client), common.getName());
				// a required server's whatever initialized says: only its answer proves
				// that it started
				if (server != null && (all || server.definition().required())) {
					initializing.put(client, CompletableFuture
						.supplyAsync(() -> initialized(server, client, initialize), (task) -> thread(server, task)));
				}
			}
		}
		RuntimeException failure = null;
		for (Object candidate : clients) {
			CompletableFuture<Boolean> initialized = initializing.get(candidate);
			if (!type.isInstance(candidate)) {
				continue;
			}
			if (initialized == null) {
				C client = type.cast(candidate);
				if (all && serverOf(clientInfo.apply(client), common.getName()) == null) {
					// another transport's client: as Spring AI would
					initialize.accept(client);
				}
			}
			else {
				try {
					// each bounded by its server's startup-timeout and the client's own;
					// a server that could not start keeps its client, which says why
					initialized.join();
				}
				catch (CompletionException ex) {
					// the first required server in Spring AI's order fails start-up,
					// once every other initialize ended
					RuntimeException cause = (ex.getCause() instanceof RuntimeException runtime) ? runtime : ex;
					failure = (failure != null) ? failure : cause;
				}
			}
		}
		if (failure != null) {
			throw failure;
		}
		return clients;
	}

	private static void thread(McpStdioServer server, Runnable task) {
		Thread thread = new Thread(task, "mcp-stdio-initialize-" + server.name());
		thread.setDaemon(true);
		thread.start();
	}

	/**
	 * Find the server of a client: Spring AI names a client
	 * {@code <spring.ai.mcp.client.name> - <transport name>}, and gives the sync client
	 * the transport's name as its title.
	 */
	private @Nullable McpStdioServer serverOf(McpSchema.@Nullable Implementation clientInfo, String clientName) {
		McpStdioServers all = this.servers.getIfAvailable();
		String name = ToolGathering.connectionOf(clientInfo, clientName);
		return (all != null && name != null) ? all.find(name) : null;
	}

	/**
	 * Initialize the client of an mcp-stdio server.
	 * @return whether it is initialized; {@code false} when the server could not start
	 * @throws McpServerStartupException when a required server could not start
	 */
	private <C> boolean initialized(McpStdioServer server, C client, Consumer<C> initialize) {
		int attempts = server.definition().restart().maxRestarts() + 1;
		for (int attempt = 1;; attempt++) {
			try {
				initialize.accept(client);
				return true;
			}
			catch (RuntimeException ex) {
				if (attempt < attempts && isRestarting(server)) {
					// the policy runs a new process; the next initialize waits for it
					continue;
				}
				String reason = reason(server, ex);
				if (server.definition().required()) {
					throw McpServerStartupException.required(server.name(), reason, ex);
				}
				giveUp(server, reason);
				this.leftOut.getObject().told(server);
				logger.warn("MCP server '" + server.name() + "' could not start and is FAILED (it is not required, so "
						+ "the application goes on; its tools are left out of Spring AI's tool callbacks until it runs "
						+ "again): " + reason);
				return false;
			}
		}
	}

	/**
	 * Give up on a server: at once when it is {@code FAILED} already, else once the
	 * servers' lifecycle has started, in the background: the stop of a process that did
	 * not answer in time must neither hold start-up nor race with that start (whose
	 * server, stopped before it, would be started again).
	 */
	private void giveUp(McpStdioServer server, String reason) {
		ServingWindow opened = this.window.getIfAvailable();
		if (server.state() == ServerState.FAILED || opened == null) {
			server.clientConnection().giveUp(reason);
			return;
		}
		opened.whenOpen(() -> thread(server, () -> server.clientConnection().giveUp(reason)));
	}

	private static boolean isRestarting(McpStdioServer server) {
		ServerState state = server.state();
		return state == ServerState.RESTARTING || state == ServerState.STARTING;
	}

	/**
	 * Say why a server could not start: its exit (code, stderr and hint) when its process
	 * ended, else what went wrong with the client's initialize.
	 */
	private static String reason(McpStdioServer server, Throwable failure) {
		// The server learns of an exit before the client does
		StdioServerProcess process = server.process();
		ExitInfo exit = server.lastExit();
		if (exit != null && process != null && exit.pid() == process.pid()) {
			return exit.message();
		}
		Throwable root = failure;
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof McpStdioException) {
				return cause.getMessage();
			}
			if (cause instanceof McpError error && error.getJsonRpcError() != null
					&& error.getJsonRpcError().data() instanceof Map<?, ?> data
					&& server.name().equals(data.get(McpStdioClientTransport.OWN_ERROR_SERVER))) {
				// the transport's own error, such as a startup-timeout missed
				return error.getJsonRpcError().message();
			}
			root = cause;
		}
		return "Spring AI's MCP client could not initialize it: "
				+ server.definition().spec().sanitize(String.valueOf(root.getMessage()));
	}

}

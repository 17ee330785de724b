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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Function;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.McpServerStartupException;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse.JSONRPCError;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.mcp.client.common.autoconfigure.properties.McpClientCommonProperties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.log.LogMessage;

/**
 * The post-processor that initializes Spring AI's MCP clients at start-up, in parallel,
 * in Spring AI's place, then tells whether the application serves: a server that cannot
 * start is {@code FAILED} (or, when {@code required}, fails start-up with the failure
 * analysis) instead of aborting the application from within Spring AI.
 *
 * @author mcp-stdio authors
 */
public final class StartupClientInitializer implements BeanPostProcessor, SmartLifecycle {

	private static final Log logger = LogFactory.getLog(StartupClientInitializer.class);

	private final ObjectProvider<McpStdioServers> servers;

	private final ObjectProvider<ToolGathering.LeftOut> leftOut;

	private @Nullable McpClientCommonProperties properties;

	/** What {@code spring.ai.mcp.client.initialized} said, once its bean was seen. */
	private @Nullable Boolean initializeAll;

	/**
	 * Whether the application serves: from just after the servers started until just
	 * before they stop.
	 */
	private volatile boolean serving;

	/**
	 * What waits for the application to serve: at most one task per server left out.
	 */
	private final List<Runnable> whenServing = new ArrayList<>();

	public StartupClientInitializer(ObjectProvider<McpStdioServers> servers,
			ObjectProvider<ToolGathering.LeftOut> leftOut) {
		this.servers = servers;
		this.leftOut = leftOut;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof McpClientCommonProperties common && this.properties == null) {
			// Bound by now: Spring AI's client beans read it next. With
			// initialized=true Spring AI initializes each client in the bean method
			// that builds them all, where one failure ends start-up: so they are
			// built uninitialized, and initialized below in Spring AI's order
			this.properties = common;
			this.initializeAll = common.isInitialized();
			common.setInitialized(false);
			return bean;
		}
		if ("mcpSyncClients".equals(beanName) && bean instanceof List<?> clients) {
			return initialize(clients, McpSyncClient.class, McpSyncClient::getClientInfo, McpSyncClient::initialize);
		}
		if ("mcpAsyncClients".equals(beanName) && bean instanceof List<?> clients) {
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
		// mcp-stdio's clients first, all at once; every other in Spring AI's order,
		// as Spring AI would
		Map<C, @Nullable CompletableFuture<Boolean>> inOrder = new LinkedHashMap<>();
		McpStdioServers servers = this.servers.getIfAvailable();
		for (C client : clients.stream().filter(type::isInstance).map(type::cast).toList()) {
			String name = ToolGathering.connectionOf(clientInfo.apply(client), common.getName());
			McpStdioServer server = (servers != null && name != null) ? servers.find(name) : null;
			if (server == null && all) {
				inOrder.put(client, null);
			}
			// a required server's whatever initialized says: only its answer proves
			// that it started
			else if (server != null && (all || server.definition().required())) {
				inOrder.put(client, CompletableFuture.supplyAsync(() -> initialized(server, client, initialize),
						(task) -> McpStdioClientTransport.inBackground("mcp-stdio-initialize-" + server.name(), task)));
			}
		}
		initializeInOrder(inOrder, initialize);
		return clients;
	}

	/**
	 * Initialize the clients without a future in turn, joining the others' futures; the
	 * first failure is thrown once every initialize ended.
	 */
	private static <C> void initializeInOrder(Map<C, @Nullable CompletableFuture<Boolean>> inOrder,
			Consumer<C> initialize) {
		RuntimeException failure = null;
		for (Map.Entry<C, @Nullable CompletableFuture<Boolean>> entry : inOrder.entrySet()) {
			CompletableFuture<Boolean> initialized = entry.getValue();
			if (initialized == null) {
				initialize.accept(entry.getKey());
				continue;
			}
			try {
				// each bounded by its server's startup-timeout and the client's own;
				// a server that could not start keeps its client, which says why
				initialized.join();
			}
			catch (CompletionException ex) {
				// the first required server in Spring AI's order fails start-up, once
				// every other initialize ended
				RuntimeException cause = (ex.getCause() instanceof RuntimeException runtime) ? runtime : ex;
				failure = (failure != null) ? failure : cause;
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

	/**
	 * Initialize the client of an mcp-stdio server, bounded by its
	 * {@code startup-timeout}: a server that cannot start is {@code FAILED}, with one
	 * WARN, and its client stays, uninitialized, failing every call with the reason until
	 * the server runs again.
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
				ServerState state = server.state();
				if (attempt < attempts && (state == ServerState.RESTARTING || state == ServerState.STARTING)) {
					// the policy runs a new process; the next initialize is for it (a
					// send to a crash-looping server fails at once: wait for the
					// restart here, bounded by its backoff and start)
					awaitRestart(server);
					continue;
				}
				String reason = reason(server, ex);
				if (server.definition().required()) {
					throw McpServerStartupException.required(server.name(), reason, ex);
				}
				giveUp(server, reason);
				this.leftOut.getObject().newAbsence(server);
				logger.warn(LogMessage.format("%s could not start and is FAILED (it is not required, so the "
						+ "application goes on; its tools are left out of Spring AI's tool callbacks until it runs "
						+ "again): %s", McpStdioException.describe(server.name()), reason));
				return false;
			}
		}
	}

	/** Wait, bounded, while a restart of the server is pending. */
	private static void awaitRestart(McpStdioServer server) {
		long deadline = System.nanoTime() + server.definition().restart().maxBackoff().toNanos()
				+ server.definition().spec().startupTimeout().toNanos();
		while (server.state() == ServerState.RESTARTING && System.nanoTime() < deadline) {
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	/**
	 * Give up on a server: at once when it is {@code FAILED} already, else once the
	 * application serves, in the background: the stop of a process that did not answer in
	 * time must neither hold start-up nor race with the servers' start (whose server,
	 * stopped before it, would be started again).
	 */
	private void giveUp(McpStdioServer server, String reason) {
		if (server.state() == ServerState.FAILED) {
			server.clientConnection().giveUp(reason);
			return;
		}
		synchronized (this.whenServing) {
			if (!this.serving) {
				this.whenServing.add(() -> McpStdioClientTransport.giveUpInBackground(server, reason));
				return;
			}
		}
		McpStdioClientTransport.giveUpInBackground(server, reason);
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
			JSONRPCError own = McpStdioClientTransport.ownError(cause, server.name());
			if (own != null) {
				// the transport's own error, such as a startup-timeout missed
				return own.message();
			}
			root = cause;
		}
		return "Spring AI's MCP client could not initialize it: "
				+ server.definition().spec().sanitize(String.valueOf(root.getMessage()));
	}

	@Override
	public void start() {
		List<Runnable> tasks;
		synchronized (this.whenServing) {
			this.serving = true;
			tasks = new ArrayList<>(this.whenServing);
			this.whenServing.clear();
		}
		tasks.forEach(Runnable::run);
	}

	@Override
	public void stop() {
		this.serving = false;
	}

	@Override
	public boolean isRunning() {
		return this.serving;
	}

	@Override
	public int getPhase() {
		// just above the servers': started after them, stopped before them
		return McpStdioServer.PHASE + 1;
	}

}

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

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Function;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.autoconfigure.McpStdioAutoConfiguration;
import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.lifecycle.McpServerStartupException;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse.JSONRPCError;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.mcp.AsyncMcpToolCallbackProvider;
import org.springframework.ai.mcp.McpToolFilter;
import org.springframework.ai.mcp.McpToolNamePrefixGenerator;
import org.springframework.ai.mcp.SyncMcpToolCallbackProvider;
import org.springframework.ai.mcp.ToolContextToMcpMetaConverter;
import org.springframework.ai.mcp.client.common.autoconfigure.NamedClientMcpTransport;
import org.springframework.ai.mcp.client.common.autoconfigure.configurer.McpAsyncClientConfigurer;
import org.springframework.ai.mcp.client.common.autoconfigure.configurer.McpSyncClientConfigurer;
import org.springframework.ai.mcp.client.common.autoconfigure.properties.McpClientCommonProperties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of Spring AI MCP client transports and tool callbacks over
 * mcp-stdio's servers.
 *
 * @author mcp-stdio authors
 */
@AutoConfiguration(after = McpStdioAutoConfiguration.class,
		beforeName = { "org.springframework.ai.mcp.client.common.autoconfigure.McpClientAutoConfiguration",
				McpStdioAiAutoConfiguration.SPRING_AI_TOOL_CALLBACKS })
@ConditionalOnClass({ NamedClientMcpTransport.class, McpClientTransport.class, JacksonMcpJsonMapper.class })
@ConditionalOnProperty(prefix = "spring.ai.mcp.client", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnBean(McpStdioServers.class)
public class McpStdioAiAutoConfiguration {

	/** The auto-configuration of Spring AI's tool callbacks, which ours replace. */
	static final String SPRING_AI_TOOL_CALLBACKS = "org.springframework.ai.mcp.client.common.autoconfigure.McpToolCallbackAutoConfiguration";

	/**
	 * One transport per enabled server, named after it; a bean of exactly this type is
	 * what Spring AI collects. Servers adopted from Spring AI's stdio configuration (see
	 * {@code mcp.stdio.adopt-spring-ai-stdio}) are among them: same name, same client.
	 * Creating it starts every server process in parallel, so that Spring AI's one-by-one
	 * handshakes wait for the slowest server only.
	 * @param servers the servers
	 * @param clients makes the transports
	 * @return the transports
	 */
	@Bean
	List<NamedClientMcpTransport> mcpStdioTransports(McpStdioServers servers, ServerClients clients) {
		// a per-user server has no client of its own: its users' instances have theirs
		List<NamedClientMcpTransport> transports = servers.list()
			.stream()
			.filter((server) -> server.definition().enabled() && server.definition().demand().perUser() == null)
			.map(clients::transport)
			.toList();
		servers.startAllInBackground();
		return transports;
	}

	/**
	 * Makes the transports and clients of the servers, named as Spring AI names its
	 * clients.
	 * @param environment where Spring AI's client settings are read
	 * @param startup whether the application serves: only then is a server that misses
	 * its {@code startup-timeout} given up by its transport
	 * @param sync the customizers of Spring AI's sync clients
	 * @param async the customizers of Spring AI's async clients
	 * @return the maker
	 */
	@Bean
	ServerClients mcpStdioServerClients(Environment environment, StartupClientInitializer startup,
			ObjectProvider<McpSyncClientConfigurer> sync, ObjectProvider<McpAsyncClientConfigurer> async) {
		Binder binder = Binder.get(environment);
		return new ServerClients(
				binder.bind("spring.ai.mcp.client.request-timeout", Duration.class).orElse(Duration.ofSeconds(20)),
				startup::isRunning, environment.getProperty("spring.ai.mcp.client.name", "spring-ai-mcp-client"),
				environment.getProperty("spring.ai.mcp.client.version", "1.0.0"), sync, async);
	}

	/**
	 * Initializes Spring AI's clients at start-up in its place, so that a server that
	 * cannot start is FAILED (or, when {@code required}, fails start-up with the failure
	 * analysis) instead of aborting the application from within Spring AI.
	 * @param servers the servers
	 * @param leftOut where the one WARN of a server that could not start is recorded
	 * @return the post-processor of Spring AI's client beans
	 */
	@Bean
	static StartupClientInitializer mcpStdioStartupClientInitializer(ObjectProvider<McpStdioServers> servers,
			ObjectProvider<ToolGathering.LeftOut> leftOut) {
		return new StartupClientInitializer(servers, leftOut);
	}

	/**
	 * Which servers' absence from the tool callbacks was told.
	 * @return the record
	 */
	@Bean
	static ToolGathering.LeftOut mcpStdioLeftOut() {
		return new ToolGathering.LeftOut();
	}

	/**
	 * The application's say in the tools: its filter, name prefix generator and tool
	 * context converter, where it has them.
	 * @param filter the application's tool filter, if any
	 * @param prefixes the application's tool name prefix generator, if any
	 * @param meta the application's tool context converter, if any
	 * @param environment where the client's name is read
	 * @return the customizers
	 */
	@Bean
	ToolGathering.Customizers mcpStdioToolCustomizers(ObjectProvider<McpToolFilter> filter,
			ObjectProvider<McpToolNamePrefixGenerator> prefixes, ObjectProvider<ToolContextToMcpMetaConverter> meta,
			Environment environment) {
		return new ToolGathering.Customizers(filter.getIfUnique(() -> (connection, tool) -> true),
				prefixes.getIfUnique(McpToolNamePrefixGenerator::noPrefix),
				meta.getIfUnique(ToolContextToMcpMetaConverter::defaultConverter),
				environment.getProperty("spring.ai.mcp.client.name", "spring-ai-mcp-client"));
	}

	/**
	 * The application's tool callbacks over the sync clients, in place of Spring AI's:
	 * gathered client by client, so that no server that does not run makes them fail.
	 * @param clients Spring AI's sync clients
	 * @param servers the servers
	 * @param serverClients makes clients of servers added or changed by a reload
	 * @param customizers the application's say in the tools
	 * @param leftOut which absences were told
	 * @return the tool callbacks
	 */
	@Bean
	@ConditionalOnMissingBean(SyncMcpToolCallbackProvider.class)
	@ConditionalOnProperty(prefix = "spring.ai.mcp.client", name = "type", havingValue = "SYNC", matchIfMissing = true)
	McpStdioSyncToolCallbacks mcpStdioToolCallbacks(ObjectProvider<List<McpSyncClient>> clients,
			McpStdioServers servers, ServerClients serverClients, ToolGathering.Customizers customizers,
			ToolGathering.LeftOut leftOut) {
		return new McpStdioSyncToolCallbacks(clients.stream().flatMap(List::stream).toList(), servers, serverClients,
				customizers, leftOut);
	}

	/**
	 * The application's tool callbacks over the async clients, in place of Spring AI's.
	 * @param clients Spring AI's async clients
	 * @param servers the servers
	 * @param serverClients makes clients of servers added or changed by a reload
	 * @param customizers the application's say in the tools
	 * @param leftOut which absences were told
	 * @return the tool callbacks
	 */
	@Bean
	@ConditionalOnMissingBean(AsyncMcpToolCallbackProvider.class)
	@ConditionalOnProperty(prefix = "spring.ai.mcp.client", name = "type", havingValue = "ASYNC")
	McpStdioAsyncToolCallbacks mcpStdioAsyncToolCallbacks(ObjectProvider<List<McpAsyncClient>> clients,
			McpStdioServers servers, ServerClients serverClients, ToolGathering.Customizers customizers,
			ToolGathering.LeftOut leftOut) {
		return new McpStdioAsyncToolCallbacks(clients.stream().flatMap(List::stream).toList(), servers, serverClients,
				customizers, leftOut);
	}

	/**
	 * Puts the starter's tool callbacks in the place of Spring AI's: Spring AI's are
	 * removed, and their bean names lead to ours. Where Spring AI's conditions left its
	 * own out, ours go too.
	 * @return the post-processor
	 */
	@Bean
	static BeanDefinitionRegistryPostProcessor mcpStdioToolCallbacksInPlaceOfSpringAis() {
		return (registry) -> {
			replace(registry, "mcpStdioToolCallbacks", "mcpToolCallbacks");
			replace(registry, "mcpStdioAsyncToolCallbacks", "mcpAsyncToolCallbacks");
		};
	}

	private static void replace(BeanDefinitionRegistry registry, String ours, String theirs) {
		if (!registry.containsBeanDefinition(ours) || Arrays.asList(registry.getAliases(ours)).contains(theirs)) {
			// none of ours, or replaced already: ahead of time, when the application was
			// built
			return;
		}
		BeanDefinition spring = registry.containsBeanDefinition(theirs) ? registry.getBeanDefinition(theirs) : null;
		if (spring == null || !SPRING_AI_TOOL_CALLBACKS.equals(spring.getFactoryBeanName())) {
			// Spring AI's conditions said no, or the name is the application's own
			registry.removeBeanDefinition(ours);
			return;
		}
		registry.removeBeanDefinition(theirs);
		registry.registerAlias(ours, theirs);
	}

	/**
	 * Initializes Spring AI's MCP clients at start-up, in parallel, then tells whether
	 * the application serves.
	 */
	static final class StartupClientInitializer implements BeanPostProcessor, SmartLifecycle {

		private static final Log logger = LogFactory.getLog(McpStdioAiAutoConfiguration.class);

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

		StartupClientInitializer(ObjectProvider<McpStdioServers> servers,
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
				return initialize(clients, McpSyncClient.class, McpSyncClient::getClientInfo,
						McpSyncClient::initialize);
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
					inOrder.put(client,
							CompletableFuture.supplyAsync(() -> initialized(server, client, initialize),
									(task) -> McpStdioClientTransport
										.inBackground("mcp-stdio-initialize-" + server.name(), task)));
				}
			}
			initializeInOrder(inOrder, initialize);
			return clients;
		}

		/**
		 * Initialize the clients without a future in turn, joining the others' futures;
		 * the first failure is thrown once every initialize ended.
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
		 * WARN, and its client stays, uninitialized, failing every call with the reason
		 * until the server runs again.
		 * @return whether it is initialized; {@code false} when the server could not
		 * start
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
					logger.warn("MCP server '" + server.name()
							+ "' could not start and is FAILED (it is not required, so "
							+ "the application goes on; its tools are left out of Spring AI's tool callbacks until it runs "
							+ "again): " + reason);
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
		 * application serves, in the background: the stop of a process that did not
		 * answer in time must neither hold start-up nor race with the servers' start
		 * (whose server, stopped before it, would be started again).
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
		 * Say why a server could not start: its exit (code, stderr and hint) when its
		 * process ended, else what went wrong with the client's initialize.
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

}

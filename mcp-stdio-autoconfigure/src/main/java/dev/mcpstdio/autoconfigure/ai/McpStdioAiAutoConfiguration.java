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

package dev.mcpstdio.autoconfigure.ai;

import java.util.Arrays;
import java.util.List;

import dev.mcpstdio.ai.McpStdioAsyncToolCallbacks;
import dev.mcpstdio.ai.McpStdioSyncToolCallbacks;
import dev.mcpstdio.ai.ServerClients;
import dev.mcpstdio.ai.StartupClientInitializer;
import dev.mcpstdio.ai.ToolGathering;
import dev.mcpstdio.autoconfigure.McpStdioAutoConfiguration;
import dev.mcpstdio.lifecycle.McpStdioServers;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;

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
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.bind.Binder;
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
		McpClientCommonProperties client = springAiClient(environment);
		return new ServerClients(client.getRequestTimeout(), startup::isRunning, client.getName(), client.getVersion(),
				sync, async);
	}

	/**
	 * Return Spring AI's client settings ({@code spring.ai.mcp.client}), bound as its own
	 * auto-configuration binds them: what is not set keeps the default of its field.
	 */
	private static McpClientCommonProperties springAiClient(Environment environment) {
		return Binder.get(environment)
			.bindOrCreate(McpClientCommonProperties.CONFIG_PREFIX, McpClientCommonProperties.class);
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
				springAiClient(environment).getName());
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

}

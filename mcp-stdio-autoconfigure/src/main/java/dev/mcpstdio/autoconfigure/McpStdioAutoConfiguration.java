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

package dev.mcpstdio.autoconfigure;

import java.util.List;

import dev.mcpstdio.autoconfigure.config.ConfiguredServers;
import dev.mcpstdio.autoconfigure.config.McpStdioProperties;
import dev.mcpstdio.autoconfigure.reload.ServerReloads;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerUsers;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.core.log.LogMessage;
import org.springframework.security.oauth2.client.ClientAuthorizationRequiredException;
import org.springframework.security.oauth2.client.OAuth2AuthorizeRequest;
import org.springframework.security.oauth2.client.OAuth2AuthorizedClient;
import org.springframework.security.oauth2.client.OAuth2AuthorizedClientManager;
import org.springframework.security.oauth2.client.OAuth2AuthorizedClientService;

/**
 * Auto-configuration of mcp-stdio's servers, their shared host and their registry.
 *
 * @author mcp-stdio authors
 */
@AutoConfiguration
@ConditionalOnProperty(prefix = McpStdioProperties.PREFIX, name = "enabled", matchIfMissing = true)
@Import(McpStdioServersRegistrar.class)
public class McpStdioAutoConfiguration {

	private static final Log logger = LogFactory.getLog(McpStdioAutoConfiguration.class);

	// the servers of the application context share it, and it is closed after them
	@Bean
	@ConditionalOnMissingBean
	ServerHost mcpStdioServerHost(McpStdioProperties properties, Environment environment) {
		ServerHost host = ServerHost.builder()
			.orphanGuard(properties.getOrphanGuard().isEnabled())
			.cgroups(properties.getCgroup().isEnabled())
			.application(environment.getProperty("spring.application.name", ""))
			.build();
		List<String> missing = host.platform().missingProtections();
		if (!missing.isEmpty()) {
			logger.warn(LogMessage.format("MCP server processes are less protected on this platform: %s",
					String.join("; ", missing)));
		}
		return host;
	}

	// the host is closed only after every server, those a reload adds included, was
	// destroyed
	@Bean
	static HostDependency mcpStdioServerHostDependency() {
		return new HostDependency();
	}

	@Bean
	@ConditionalOnMissingBean
	McpStdioServers mcpStdioServers(ObjectProvider<McpStdioServer> servers) {
		return new McpStdioServers(servers.orderedStream().toList());
	}

	@Bean
	ServerReloads mcpStdioServerReloads(McpStdioServers servers, ServerHost host,
			DefaultListableBeanFactory beanFactory, ConfiguredServers configured) {
		return new ServerReloads(servers, host, beanFactory, configured);
	}

	/**
	 * Records the host as a dependency of each server's bean, so that the context
	 * destroys the servers before it closes the host.
	 */
	static final class HostDependency implements BeanPostProcessor, BeanFactoryAware {

		private @Nullable ConfigurableListableBeanFactory beanFactory;

		@Override
		public void setBeanFactory(BeanFactory beanFactory) {
			this.beanFactory = (beanFactory instanceof ConfigurableListableBeanFactory configurable) ? configurable
					: null;
		}

		@Override
		public Object postProcessBeforeInitialization(Object bean, String beanName) {
			ConfigurableListableBeanFactory beans = this.beanFactory;
			if (bean instanceof McpStdioServer && beans != null) {
				for (String hostName : beans.getBeanNamesForType(ServerHost.class)) {
					beans.registerDependentBean(hostName, beanName);
				}
			}
			return bean;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(EnvironmentChangeEvent.class)
	static class EnvironmentChangeReloadConfiguration {

		// Spring Cloud's refresh (/actuator/refresh, Config Server, a ConfigMap reload)
		@Bean
		ApplicationListener<EnvironmentChangeEvent> mcpStdioEnvironmentChangeReload(ServerReloads reloads) {
			return (event) -> {
				if (event.getKeys()
					.stream()
					.anyMatch((key) -> key.startsWith("mcp.stdio.") || key.startsWith("spring.ai.mcp.client.stdio."))) {
					reloads.reloadLater("an EnvironmentChangeEvent");
				}
			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.security.core.context.SecurityContextHolder")
	static class PerUserConfiguration {

		@Bean
		@ConditionalOnMissingBean
		McpStdioUsers mcpStdioUsers() {
			return McpStdioUsers.keyedHash();
		}

		@Bean
		@ConditionalOnMissingBean
		ServerUsers mcpStdioServerUsers(McpStdioUsers users, ObjectProvider<SecurityUsers.Tokens> tokens) {
			return new SecurityUsers(users, tokens.getIfAvailable());
		}

		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(name = "org.springframework.security.oauth2.client.OAuth2AuthorizedClientService")
		static class OAuth2Configuration {

			// the manager refreshes an expired token where the application has one
			@Bean
			SecurityUsers.Tokens mcpStdioOAuth2Tokens(ObjectProvider<OAuth2AuthorizedClientManager> managers,
					ObjectProvider<OAuth2AuthorizedClientService> services) {
				return (registrationId, user) -> {
					OAuth2AuthorizedClientManager manager = managers.getIfUnique();
					OAuth2AuthorizedClientService service = services.getIfUnique();
					OAuth2AuthorizedClient client;
					try {
						client = (manager != null) ? manager.authorize(
								OAuth2AuthorizeRequest.withClientRegistrationId(registrationId).principal(user).build())
								: (service != null) ? service.loadAuthorizedClient(registrationId, user.getName())
										: null;
					}
					catch (ClientAuthorizationRequiredException ex) {
						// the user has not authorized the client (signed in otherwise
						// than
						// with oauth2Login): no token, said as such
						return null;
					}
					return (client != null) ? client.getAccessToken().getTokenValue() : null;
				};
			}

		}

	}

}

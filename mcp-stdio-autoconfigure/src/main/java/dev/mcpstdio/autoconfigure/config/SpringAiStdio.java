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

package dev.mcpstdio.autoconfigure.config;

import java.util.Arrays;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.AotDetector;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.core.log.LogMessage;
import org.springframework.util.ClassUtils;

/**
 * Removes Spring AI's own stdio transports when mcp-stdio adopts their servers.
 *
 * @author mcp-stdio authors
 */
public class SpringAiStdio implements BeanDefinitionRegistryPostProcessor {

	// Spring AI's names only, so that nothing here needs it on the class path

	/** Spring AI's stdio connections, by name: command, args, env. */
	static final String CONNECTIONS = "spring.ai.mcp.client.stdio.connections";

	/** Spring AI's servers file, a resource in the mcpServers format. */
	static final String SERVERS_CONFIGURATION = "spring.ai.mcp.client.stdio.servers-configuration";

	private static final String AUTO_CONFIGURATION = "org.springframework.ai.mcp.client.common.autoconfigure.StdioTransportAutoConfiguration";

	/** The method of the auto-configuration whose bean holds the transports. */
	private static final String TRANSPORTS_METHOD = "stdioTransports";

	private static final String[] REQUIRED_CLASSES = { AUTO_CONFIGURATION,
			"org.springframework.ai.mcp.client.common.autoconfigure.NamedClientMcpTransport",
			"io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper" };

	private static final Log logger = LogFactory.getLog(SpringAiStdio.class);

	/**
	 * Return whether Spring AI's stdio transport would start processes here: its classes
	 * are present and its client is enabled, evaluated as its own condition does.
	 * @param environment the environment
	 * @param classLoader the application's class loader
	 * @return whether Spring AI's stdio transport is active
	 */
	static boolean isActive(Environment environment, @Nullable ClassLoader classLoader) {
		// @ConditionalOnProperty(havingValue = "true", matchIfMissing = true)
		return Arrays.stream(REQUIRED_CLASSES).allMatch((name) -> ClassUtils.isPresent(name, classLoader))
				&& "true".equalsIgnoreCase(environment.getProperty("spring.ai.mcp.client.enabled", "true"));
	}

	/**
	 * Return whether Spring AI's stdio servers are adopted, without reading the servers:
	 * what is decided when the application is processed ahead of time.
	 * @param environment the environment
	 * @param classLoader tells whether Spring AI's stdio transport is there
	 * @return whether they are adopted
	 */
	public static boolean isAdopted(Environment environment, @Nullable ClassLoader classLoader) {
		// unset, the default on the property's field
		return isActive(environment, classLoader) && Binder.get(environment)
			.bind(McpStdioProperties.PREFIX + ".adopt-spring-ai-stdio", Boolean.class)
			.orElseGet(() -> new McpStdioProperties().isAdoptSpringAiStdio());
	}

	/**
	 * Remove the bean of Spring AI's stdio transports, so that each server has one
	 * process tree, never two: Spring AI builds a client for every transport in its list,
	 * and the client starts the process.
	 */
	@Override
	public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
		boolean autoConfigured = false;
		for (String name : registry.getBeanDefinitionNames()) {
			BeanDefinition definition = registry.getBeanDefinition(name);
			autoConfigured |= AUTO_CONFIGURATION.equals(definition.getBeanClassName());
			if (isTransports(registry, name, definition)) {
				// The bean, not its auto-configuration: that one's properties beans stay,
				// and an import filter would not see it registered any other way than
				// through @EnableAutoConfiguration or @ImportAutoConfiguration
				registry.removeBeanDefinition(name);
				logger.debug(LogMessage.format(
						"Removed Spring AI's stdio transports (bean '%s'): mcp-stdio runs the servers configured for them",
						name));
				return;
			}
		}
		// ahead of time, the bean was removed when the application was built
		if (autoConfigured && !AotDetector.useGeneratedArtifacts()) {
			logger.warn(LogMessage.format("Spring AI's stdio transports bean (%s.%s) was not found: a server "
					+ "configured under spring.ai.mcp.client.stdio may start twice. Set %s.adopt-spring-ai-stdio=false "
					+ "and configure such servers under mcp.stdio.servers only", AUTO_CONFIGURATION, TRANSPORTS_METHOD,
					McpStdioProperties.PREFIX));
		}
	}

	/**
	 * Return whether a bean is Spring AI's stdio transports: a bean of its
	 * auto-configuration's method, or ahead of time (where the generated definition names
	 * the auto-configuration as its class and no factory method) a bean of that
	 * auto-configuration named after the method.
	 */
	private static boolean isTransports(BeanDefinitionRegistry registry, String name, BeanDefinition definition) {
		String factoryBean = definition.getFactoryBeanName();
		if (factoryBean != null) {
			return TRANSPORTS_METHOD.equals(definition.getFactoryMethodName())
					&& registry.containsBeanDefinition(factoryBean)
					&& AUTO_CONFIGURATION.equals(registry.getBeanDefinition(factoryBean).getBeanClassName());
		}
		return TRANSPORTS_METHOD.equals(name) && AUTO_CONFIGURATION.equals(definition.getBeanClassName())
				&& AotDetector.useGeneratedArtifacts();
	}

}

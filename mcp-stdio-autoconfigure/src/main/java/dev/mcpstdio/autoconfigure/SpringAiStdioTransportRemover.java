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

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Removes the bean of Spring AI's own stdio transports when mcp-stdio adopts its servers,
 * so that each server has one process tree, never two: Spring AI builds a client for
 * every transport in its list, and the client starts the process.
 *
 * @author mcp-stdio authors
 */
class SpringAiStdioTransportRemover implements BeanDefinitionRegistryPostProcessor, BeanClassLoaderAware {

	private static final Log logger = LogFactory.getLog(SpringAiStdioTransportRemover.class);

	private final Environment environment;

	private @Nullable ClassLoader classLoader;

	SpringAiStdioTransportRemover(Environment environment) {
		this.environment = environment;
	}

	@Override
	public void setBeanClassLoader(ClassLoader classLoader) {
		this.classLoader = classLoader;
	}

	@Override
	public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
		// the registrar has validated the value: a bad one stopped start-up already
		boolean adopt = Binder.get(this.environment)
			.bind(McpStdioProperties.PREFIX + ".adopt-spring-ai-stdio", Boolean.class)
			.orElse(true);
		if (!adopt || !SpringAiStdio.isActive(this.environment, this.classLoader)) {
			return;
		}
		boolean autoConfigured = false;
		for (String name : registry.getBeanDefinitionNames()) {
			BeanDefinition definition = registry.getBeanDefinition(name);
			if (SpringAiStdio.AUTO_CONFIGURATION.equals(definition.getBeanClassName())) {
				autoConfigured = true;
			}
			String factoryBean = definition.getFactoryBeanName();
			if (SpringAiStdio.TRANSPORTS_METHOD.equals(definition.getFactoryMethodName()) && factoryBean != null
					&& registry.containsBeanDefinition(factoryBean) && SpringAiStdio.AUTO_CONFIGURATION
						.equals(registry.getBeanDefinition(factoryBean).getBeanClassName())) {
				// The bean, not its auto-configuration: that one's properties beans stay,
				// and an import filter would not see it registered any other way than
				// through @EnableAutoConfiguration or @ImportAutoConfiguration
				registry.removeBeanDefinition(name);
				logger.debug("Removed Spring AI's stdio transports (bean '" + name
						+ "'): mcp-stdio runs the servers configured for them");
				return;
			}
		}
		if (autoConfigured) {
			logger.warn("Spring AI's stdio transports bean (" + SpringAiStdio.AUTO_CONFIGURATION + "."
					+ SpringAiStdio.TRANSPORTS_METHOD + ") was not found: a server configured under "
					+ "spring.ai.mcp.client.stdio may start twice. Set " + McpStdioProperties.PREFIX
					+ ".adopt-spring-ai-stdio=false and configure such servers under mcp.stdio.servers only");
		}
	}

	@Override
	public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
	}

}

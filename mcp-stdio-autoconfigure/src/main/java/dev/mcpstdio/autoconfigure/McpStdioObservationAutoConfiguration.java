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

import dev.mcpstdio.autoconfigure.config.McpStdioProperties;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.observation.McpOperationObservationConvention;
import dev.mcpstdio.lifecycle.observation.RequestObservations;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the per-request telemetry of every {@link McpStdioServer}.
 *
 * @author mcp-stdio authors
 */
@AutoConfiguration(after = McpStdioAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean({ ObservationRegistry.class, ServerHost.class })
@ConditionalOnBooleanProperty(name = McpStdioProperties.PREFIX + ".observations.enabled", matchIfMissing = true)
public final class McpStdioObservationAutoConfiguration {

	// static, and the registry looked up only when the first server is created: a bean
	// post-processor must not create the registry before the registry's own
	// post-processor (Boot's, which gives it its handlers) is there
	@Bean
	static BeanPostProcessor mcpStdioRequestObservationsPostProcessor(ObjectProvider<ObservationRegistry> registry,
			ObjectProvider<McpOperationObservationConvention> convention) {
		return new BeanPostProcessor() {

			// as it is initialized: a client (Spring AI's, whose beans need the servers)
			// cannot send a request, its initialize included, before the server is
			// observed; a bean of type McpOperationObservationConvention replaces the
			// default convention
			@Override
			public Object postProcessAfterInitialization(Object bean, String beanName) {
				if (bean instanceof McpStdioServer server) {
					new RequestObservations(server, registry.getObject(), convention.getIfUnique()).attach();
				}
				return bean;
			}

		};
	}

}

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
import dev.mcpstdio.autoconfigure.config.McpStdioProperties.OrphanGuard.SweepScope;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the start-up sweep of what dead JVMs left.
 *
 * @author mcp-stdio authors
 */
@AutoConfiguration(before = McpStdioAutoConfiguration.class)
@ConditionalOnProperty(prefix = McpStdioProperties.PREFIX, name = "enabled", matchIfMissing = true)
public class McpStdioOrphanGuardAutoConfiguration {

	// A post-processor of the host (ours or the application's own): every server needs
	// the host, so the sweep ends the containers, cgroups and marked processes of dead
	// JVMs before any server starts, even one a client starts while it is being created
	@Bean
	static BeanPostProcessor mcpStdioStartupSweep(ObjectProvider<McpStdioProperties> properties,
			ObjectProvider<ConfiguredServers> configured) {
		return new BeanPostProcessor() {

			@Override
			public Object postProcessAfterInitialization(Object bean, String beanName) {
				if (bean instanceof ServerHost host) {
					ConfiguredServers servers = configured.getIfAvailable();
					McpStdioProperties bound = properties.getIfAvailable(McpStdioProperties::new);
					List<McpStdioServerDefinition> definitions = (servers != null) ? servers.definitions() : List.of();
					if (bound.getOrphanGuard().isEnabled()) {
						// the enabled servers, for the engines of their containers;
						// SIGTERM's wait the longest terminate-timeout, so that a
						// leftover of any of them gets at least its own server's time
						List<StdioServerSpec> specs = definitions.stream()
							.filter(McpStdioServerDefinition::enabled)
							.map(McpStdioServerDefinition::spec)
							.toList();
						host.sweepLeftovers(specs, ConfiguredServers.longestTerminateTimeout(bound, definitions),
								bound.getOrphanGuard().getSweepScope() == SweepScope.USER);
					}
					host.describeContainment();
				}
				return bean;
			}

		};
	}

}

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

import java.time.Duration;
import java.util.List;

import dev.mcpstdio.autoconfigure.McpStdioProperties.OrphanGuard.SweepScope;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition;

import org.jspecify.annotations.Nullable;

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
	static BeanPostProcessor mcpStdioStartupSweep(ObjectProvider<ConfiguredServers> configured) {
		return new BeanPostProcessor() {

			@Override
			public Object postProcessAfterInitialization(Object bean, String beanName) {
				if (bean instanceof ServerHost host) {
					ConfiguredServers servers = configured.getIfAvailable();
					McpStdioProperties properties = (servers != null) ? servers.properties : new McpStdioProperties();
					if (properties.getOrphanGuard().isEnabled()) {
						// the enabled servers, for the engines of their containers
						List<StdioServerSpec> specs = (servers != null) ? servers.definitions.stream()
							.filter(McpStdioServerDefinition::enabled)
							.map(McpStdioServerDefinition::spec)
							.toList() : List.of();
						host.sweepLeftovers(specs, sweepTerminateTimeout(servers, properties),
								properties.getOrphanGuard().getSweepScope() == SweepScope.USER);
					}
					host.describeContainment();
				}
				return bean;
			}

		};
	}

	/**
	 * Return how long the sweep waits after SIGTERM: the longest
	 * {@code terminate-timeout} of the configured servers and of {@code defaults}, so
	 * that a leftover of any of them gets at least its own server's time to end.
	 */
	private static Duration sweepTerminateTimeout(@Nullable ConfiguredServers servers, McpStdioProperties properties) {
		Duration longest = properties.getDefaults().getShutdown().getTerminateTimeout();
		for (McpStdioServerDefinition definition : (servers != null) ? servers.definitions
				: List.<McpStdioServerDefinition>of()) {
			Duration terminate = definition.spec().shutdown().terminate();
			longest = (terminate.compareTo(longest) > 0) ? terminate : longest;
		}
		return longest;
	}

}

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
import java.util.ArrayList;
import java.util.List;

import dev.mcpstdio.autoconfigure.McpStdioProperties.OrphanGuard.SweepScope;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.ShutdownTimeouts;
import dev.mcpstdio.core.StdioServerSpec;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;

/**
 * Auto-configuration of the start-up sweep: once the {@link ServerHost} exists (ours or
 * one of the application's own), and so before any server starts, it ends what dead JVMs
 * left (their containers, their cgroups, then their marked processes, of this application
 * unless {@code mcp.stdio.orphan-guard.sweep-scope=user}) and says which containment is
 * in use.
 *
 * @author mcp-stdio authors
 */
@AutoConfiguration(before = McpStdioAutoConfiguration.class)
@ConditionalOnProperty(prefix = McpStdioProperties.PREFIX, name = "enabled", matchIfMissing = true)
public class McpStdioOrphanGuardAutoConfiguration {

	private static final Log logger = LogFactory.getLog(McpStdioOrphanGuardAutoConfiguration.class);

	// A post-processor of the host: every server needs the host, so it runs before any
	// server starts, even one a client starts while it is being created
	@Bean
	static BeanPostProcessor mcpStdioStartupSweep(Environment environment, ResourceLoader resourceLoader) {
		Binder binder = Binder.get(environment);
		boolean enabled = binder.bind(McpStdioProperties.PREFIX + ".orphan-guard.enabled", Boolean.class).orElse(true);
		SweepScope scope = binder.bind(McpStdioProperties.PREFIX + ".orphan-guard.sweep-scope", SweepScope.class)
			.orElse(SweepScope.APPLICATION);
		Duration terminate = binder
			.bind(McpStdioProperties.PREFIX + ".defaults.shutdown.terminate-timeout", Duration.class)
			.orElse(ShutdownTimeouts.DEFAULTS.terminate());
		return new BeanPostProcessor() {

			@Override
			public Object postProcessAfterInitialization(Object bean, String beanName) {
				if (bean instanceof ServerHost host) {
					if (enabled) {
						host.sweepLeftovers(configuredServers(environment, resourceLoader), terminate,
								scope == SweepScope.USER);
					}
					host.describeContainment();
				}
				return bean;
			}

		};
	}

	/**
	 * The enabled servers, for the engines of their containers; none when the
	 * configuration is invalid, which the registrar reports.
	 */
	private static List<StdioServerSpec> configuredServers(Environment environment, ResourceLoader resourceLoader) {
		List<StdioServerSpec> specs = new ArrayList<>();
		try {
			for (McpStdioServerDefinition definition : McpStdioServersRegistrar.configure(environment, resourceLoader,
					resourceLoader.getClassLoader(), new ProblemReport(), (note) -> {
					})
				.definitions()) {
				if (definition.enabled()) {
					specs.add(definition.spec());
				}
			}
		}
		catch (RuntimeException ex) {
			logger.debug("No container sweep: the MCP server configuration is not usable: " + ex.getMessage());
		}
		return specs;
	}

}

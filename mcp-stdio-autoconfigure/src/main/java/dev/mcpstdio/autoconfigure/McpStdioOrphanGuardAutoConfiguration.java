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

import dev.mcpstdio.core.OrphanGuard;
import dev.mcpstdio.core.OrphanSweep;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.ShutdownTimeouts;
import dev.mcpstdio.core.StdioServerSpec;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;

/**
 * Auto-configuration of the orphan guard and of containment: applies
 * {@code mcp.stdio.orphan-guard.enabled} to {@link OrphanGuard} and
 * {@code mcp.stdio.cgroup.enabled} to the {@link ServerHost}, says which containment is
 * in use, and runs the start-up sweeps before any server bean exists, so that what dead
 * JVMs left is gone before new servers start: their containers, their cgroups, then their
 * marked processes ({@link OrphanSweep}).
 *
 * @author mcp-stdio authors
 */
@AutoConfiguration(before = McpStdioAutoConfiguration.class)
@ConditionalOnProperty(prefix = McpStdioProperties.PREFIX, name = "enabled", matchIfMissing = true)
public class McpStdioOrphanGuardAutoConfiguration {

	private static final Log logger = LogFactory.getLog(McpStdioOrphanGuardAutoConfiguration.class);

	// A bean factory post-processor runs before any bean is created, so before any
	// server starts, even one a client starts while it is being created
	@Bean
	static BeanFactoryPostProcessor mcpStdioOrphanGuard(Environment environment, ResourceLoader resourceLoader) {
		Binder binder = Binder.get(environment);
		boolean enabled = binder.bind(McpStdioProperties.PREFIX + ".orphan-guard.enabled", Boolean.class).orElse(true);
		boolean cgroups = binder.bind(McpStdioProperties.PREFIX + ".cgroup.enabled", Boolean.class).orElse(true);
		Duration terminate = binder
			.bind(McpStdioProperties.PREFIX + ".defaults.shutdown.terminate-timeout", Duration.class)
			.orElse(ShutdownTimeouts.DEFAULTS.terminate());
		return (beanFactory) -> {
			OrphanGuard.shared().setEnabled(enabled);
			ServerHost host = ServerHost.shared();
			host.setCgroupsEnabled(cgroups);
			if (enabled) {
				// containers first: the process sweep would end their marked processes
				// and leave them stopped but not removed
				host.sweepContainers(configuredServers(environment, resourceLoader));
				host.sweepCgroups(terminate);
				host.orphanSweep().sweep(terminate);
			}
			host.describeContainment();
		};
	}

	/**
	 * The enabled servers, for the engines of their containers; none when the
	 * configuration is invalid, which the registrar reports.
	 */
	private static List<StdioServerSpec> configuredServers(Environment environment, ResourceLoader resourceLoader) {
		List<StdioServerSpec> specs = new ArrayList<>();
		try {
			for (McpStdioServerDefinition definition : McpStdioServersRegistrar
				.configure(environment, resourceLoader, resourceLoader.getClassLoader(), new Problems(), (note) -> {
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

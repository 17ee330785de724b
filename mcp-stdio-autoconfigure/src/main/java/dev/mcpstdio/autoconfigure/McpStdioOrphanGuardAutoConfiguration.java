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

import dev.mcpstdio.core.OrphanGuard;
import dev.mcpstdio.core.OrphanSweep;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.ShutdownTimeouts;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of the orphan guard: applies {@code mcp.stdio.orphan-guard.enabled}
 * to {@link OrphanGuard} and runs the {@link OrphanSweep start-up sweep} before any
 * server bean exists, so that processes left by dead JVMs are gone before new ones start.
 *
 * @author mcp-stdio authors
 */
@AutoConfiguration(before = McpStdioAutoConfiguration.class)
@ConditionalOnProperty(prefix = McpStdioProperties.PREFIX, name = "enabled", matchIfMissing = true)
public class McpStdioOrphanGuardAutoConfiguration {

	// A bean factory post-processor runs before any bean is created, so before any
	// server starts, even one a client starts while it is being created
	@Bean
	static BeanFactoryPostProcessor mcpStdioOrphanGuard(Environment environment) {
		Binder binder = Binder.get(environment);
		boolean enabled = binder.bind(McpStdioProperties.PREFIX + ".orphan-guard.enabled", Boolean.class).orElse(true);
		Duration terminate = binder
			.bind(McpStdioProperties.PREFIX + ".defaults.shutdown.terminate-timeout", Duration.class)
			.orElse(ShutdownTimeouts.DEFAULTS.terminate());
		return (beanFactory) -> {
			OrphanGuard.shared().setEnabled(enabled);
			if (enabled) {
				ServerHost.shared().orphanSweep().sweep(terminate);
			}
		};
	}

}

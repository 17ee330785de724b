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

package dev.mcpstdio.actuate;

import dev.mcpstdio.autoconfigure.McpStdioAutoConfiguration;
import dev.mcpstdio.autoconfigure.McpStdioProperties;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.observation.McpOperationMeterHandler;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.micrometer.metrics.autoconfigure.MeterRegistryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

/**
 * Auto-configuration of the {@link McpStdioMetrics Micrometer meters} of the MCP servers
 * and of {@link McpClientSessionMetrics mcp.client.session.duration}, when Micrometer is
 * present and a {@link MeterRegistry} is configured; with the histogram buckets of the
 * {@code mcp.client.*} timers, the meter handler of the request observations, and, for
 * Prometheus, the same label names on all of them.
 *
 * @author mcp-stdio authors
 */
@AutoConfiguration(after = McpStdioAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, McpStdioServers.class })
public final class McpStdioMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	McpStdioMetrics mcpStdioMetrics(McpStdioServers servers) {
		return new McpStdioMetrics(servers);
	}

	@Bean
	@ConditionalOnMissingBean
	McpClientSessionMetrics mcpClientSessionMetrics(McpStdioServers servers) {
		return new McpClientSessionMetrics(servers);
	}

	@Bean
	MeterFilter mcpClientHistograms() {
		return new McpClientHistograms();
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "io.micrometer.observation.ObservationRegistry")
	@ConditionalOnBooleanProperty(name = McpStdioProperties.PREFIX + ".observations.enabled", matchIfMissing = true)
	static class OperationMeterConfiguration {

		// ahead of Micrometer's default meter handler, which Boot groups with it: the
		// first that supports a context records it
		@Bean
		@Order(0)
		@ConditionalOnMissingBean
		McpOperationMeterHandler mcpOperationMeterHandler(MeterRegistry registry) {
			return new McpOperationMeterHandler(registry);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(PrometheusMeterRegistry.class)
	static class PrometheusLabelsConfiguration {

		@Bean
		MeterRegistryCustomizer<PrometheusMeterRegistry> mcpClientPrometheusLabels() {
			return (registry) -> registry.config().meterFilter(new McpClientPrometheusLabels());
		}

	}

}

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
import dev.mcpstdio.lifecycle.observation.McpOperationMeterHandler;
import dev.mcpstdio.autoconfigure.actuate.McpServersEndpointAutoConfiguration;
import dev.mcpstdio.autoconfigure.actuate.McpServersHealthContributorAutoConfiguration;
import dev.mcpstdio.autoconfigure.actuate.McpStdioMetricsAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the auto-configurations of this package: present with actuator and
 * Micrometer, and backing off cleanly without them. No server is configured, so no
 * process is started.
 *
 * @author mcp-stdio authors
 */
class McpStdioActuateAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(McpStdioAutoConfiguration.class, EndpointAutoConfiguration.class,
				MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
				SimpleMetricsExportAutoConfiguration.class, McpServersEndpointAutoConfiguration.class,
				McpServersHealthContributorAutoConfiguration.class, McpStdioMetricsAutoConfiguration.class))
		.withPropertyValues("management.endpoints.web.exposure.include=mcpservers");

	@Test
	void everythingIsConfiguredWithActuatorAndMicrometer() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(McpServersEndpoint.class)
				.hasSingleBean(McpServersEndpointWebExtension.class)
				.hasSingleBean(McpStdioMetrics.class)
				.hasSingleBean(McpOperationMeterHandler.class)
				.hasBean("mcpClientHistograms")
				.hasBean("mcpClientPrometheusLabels")
				.hasSingleBean(MeterRegistry.class)
				.hasBean("mcpServersHealthIndicator");
			assertThat(context.getBean(McpServersEndpoint.class).servers().servers()).isEmpty();
		});
	}

	@Test
	void endpointBacksOffWithoutActuator() {
		this.runner.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(McpServersEndpoint.class));
	}

	@Test
	void endpointBacksOffWhenNotExposed() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=health")
			.run((context) -> assertThat(context).doesNotHaveBean(McpServersEndpoint.class));
	}

	@Test
	void webExtensionBacksOffWhenExposedOnlyOverJmx() {
		this.runner
			.withPropertyValues("spring.jmx.enabled=true", "management.endpoints.web.exposure.include=health",
					"management.endpoints.jmx.exposure.include=mcpservers")
			.run((context) -> assertThat(context).hasSingleBean(McpServersEndpoint.class)
				.doesNotHaveBean(McpServersEndpointWebExtension.class));
	}

	@Test
	void endpointBacksOffWhenItsAccessIsNone() {
		this.runner.withPropertyValues("management.endpoint.mcpservers.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(McpServersEndpoint.class));
	}

	@Test
	void healthBacksOffWithoutHealthSupport() {
		this.runner.withClassLoader(new FilteredClassLoader(Health.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(McpServersHealthIndicator.class));
	}

	@Test
	void healthBacksOffWhenDisabled() {
		this.runner.withPropertyValues("management.health.mcpServers.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(McpServersHealthIndicator.class));
	}

	@Test
	void healthBacksOffWhenDefaultsAreDisabled() {
		this.runner.withPropertyValues("management.health.defaults.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(McpServersHealthIndicator.class));
	}

	@Test
	void metricsBackOffWithoutMicrometer() {
		this.runner.withClassLoader(new FilteredClassLoader("io.micrometer.core"))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(McpStdioMetrics.class));
	}

	@Test
	void operationMeterHandlerBacksOffWhenObservationsAreOff() {
		this.runner.withPropertyValues("mcp.stdio.observations.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(McpStdioMetrics.class)
				.doesNotHaveBean(McpOperationMeterHandler.class));
	}

	@Test
	void prometheusLabelsBackOffWithoutPrometheus() {
		this.runner.withClassLoader(new FilteredClassLoader("io.micrometer.prometheusmetrics"))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(McpStdioMetrics.class)
				.doesNotHaveBean("mcpClientPrometheusLabels"));
	}

	@Test
	void metricsBackOffWithoutAMeterRegistry() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(McpStdioAutoConfiguration.class, McpStdioMetricsAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(McpStdioMetrics.class));
	}

	@Test
	void everythingBacksOffWhenMcpStdioIsDisabled() {
		this.runner.withPropertyValues("mcp.stdio.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(McpServersEndpoint.class)
				.doesNotHaveBean(McpStdioMetrics.class)
				.doesNotHaveBean(McpServersHealthIndicator.class));
	}

}

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

package dev.mcpstdio.autoconfigure.actuate;

import java.util.Arrays;
import java.util.List;

import dev.mcpstdio.actuate.McpStdioMetrics;
import dev.mcpstdio.autoconfigure.McpStdioAutoConfiguration;
import dev.mcpstdio.autoconfigure.config.McpStdioProperties;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.observation.McpOperationMeterHandler;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.jspecify.annotations.Nullable;

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
 * Auto-configuration of the MCP servers' Micrometer meters and of how registries publish
 * them.
 *
 * @author mcp-stdio authors
 */
@AutoConfiguration(after = McpStdioAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, McpStdioServers.class })
public final class McpStdioMetricsAutoConfiguration {

	private static final String OPERATION_DURATION = "mcp.client.operation.duration";

	/**
	 * The request buckets, in seconds: those the OpenTelemetry MCP conventions advise (10
	 * ms to 300 s), and below them 1, 2.5 and 5 ms, since a request to a local process
	 * often takes less than 10 ms.
	 */
	private static final DistributionStatisticConfig OPERATION_BUCKETS = buckets(0.001, 0.0025, 0.005, 0.01, 0.02, 0.05,
			0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300);

	/** The session buckets, in seconds: the conventions', then up to a day. */
	private static final DistributionStatisticConfig SESSION_BUCKETS = buckets(0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5,
			10, 30, 60, 120, 300, 600, 1800, 3600, 14400, 86400);

	@Bean
	@ConditionalOnMissingBean
	McpStdioMetrics mcpStdioMetrics(McpStdioServers servers) {
		return new McpStdioMetrics(servers);
	}

	/**
	 * Publishes the histogram buckets of the {@code mcp.client.*} timers, so that
	 * Prometheus gets {@code _bucket} series and computes quantiles across instances.
	 * What the application configures wins
	 * ({@code management.metrics.distribution.slo.mcp.client.operation.duration=...}).
	 * @return the filter
	 */
	@Bean
	MeterFilter mcpClientHistograms() {
		return new MeterFilter() {

			@Override
			public @Nullable DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
				if (id.getType() != Meter.Type.TIMER) {
					return config;
				}
				return switch (id.getName()) {
					case OPERATION_DURATION -> config.merge(OPERATION_BUCKETS);
					case McpStdioMetrics.SESSION_DURATION -> config.merge(SESSION_BUCKETS);
					default -> config;
				};
			}

		};
	}

	private static DistributionStatisticConfig buckets(double... seconds) {
		// a timer's histogram counts nanoseconds
		double[] nanos = Arrays.stream(seconds).map((s) -> Math.round(s * 1e9)).toArray();
		return DistributionStatisticConfig.builder().serviceLevelObjectives(nanos).build();
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

		/**
		 * The keys of {@code mcp.client.operation.duration}, as the default convention
		 * sets them.
		 */
		private static final List<String> OPERATION_KEYS = List.of("server", "mcp.method.name", "gen_ai.tool.name",
				"gen_ai.prompt.name", "network.transport", "error.type");

		private static final List<String> SESSION_KEYS = List.of("server", "network.transport", "error.type");

		/**
		 * Gives every {@code mcp.client.*} meter of a Prometheus registry the same label
		 * names: its registry refuses a meter whose tag keys differ from those of the
		 * first meter of its name, while the conventions set some keys only where they
		 * apply. A missing key gets an empty value, which Prometheus takes for an absent
		 * label ({@code {error_type=""}} selects the successes); other registries get the
		 * attributes as the conventions set them.
		 * @return the customizer
		 */
		@Bean
		MeterRegistryCustomizer<PrometheusMeterRegistry> mcpClientPrometheusLabels() {
			return (registry) -> registry.config().meterFilter(new MeterFilter() {

				@Override
				public Meter.Id map(Meter.Id id) {
					if (id.getName().startsWith(OPERATION_DURATION)) {
						// the timer, and the long task timer ".active" of the observation
						// handler
						return withKeys(id, OPERATION_KEYS);
					}
					return id.getName().equals(McpStdioMetrics.SESSION_DURATION) ? withKeys(id, SESSION_KEYS) : id;
				}

			});
		}

		private static Meter.Id withKeys(Meter.Id id, List<String> keys) {
			List<Tag> missing = keys.stream()
				.filter((key) -> id.getTag(key) == null)
				.map((key) -> Tag.of(key, ""))
				.toList();
			return missing.isEmpty() ? id : id.withTags(missing);
		}

	}

}

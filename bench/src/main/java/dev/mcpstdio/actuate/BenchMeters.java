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

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The Prometheus registry of an application with mcp-stdio's metrics, as the
 * auto-configuration sets it up: the same label names on the {@code mcp.client.*} meters
 * and their histogram buckets. For the transport benchmark's observations scenario, which
 * runs without a Spring context.
 *
 * @author mcp-stdio authors
 */
public final class BenchMeters {

	private BenchMeters() {
	}

	public static PrometheusMeterRegistry prometheus() {
		PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
		new McpStdioMetricsAutoConfiguration.PrometheusLabelsConfiguration().mcpClientPrometheusLabels()
			.customize(registry);
		registry.config().meterFilter(new McpStdioMetricsAutoConfiguration().mcpClientHistograms());
		return registry;
	}

}

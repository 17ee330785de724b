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

import java.util.Arrays;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import org.jspecify.annotations.Nullable;

/**
 * Publishes the histogram buckets of {@code mcp.client.operation.duration} and {@code
 * mcp.client.session.duration}, so that Prometheus gets {@code _bucket} series and
 * computes quantiles across instances. What the application configures wins ({@code
 * management.metrics.distribution.slo.mcp.client.operation.duration=...}).
 *
 * @author mcp-stdio authors
 */
final class McpClientHistograms implements MeterFilter {

	/**
	 * The request buckets, in seconds: those the OpenTelemetry MCP conventions advise (10
	 * ms to 300 s), and below them 1, 2.5 and 5 ms, since a request to a local process
	 * often takes less than 10 ms.
	 */
	static final double[] OPERATION_BUCKETS = { 0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30,
			60, 120, 300 };

	/** The session buckets, in seconds: the conventions', then up to a day. */
	static final double[] SESSION_BUCKETS = { 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800,
			3600, 14400, 86400 };

	private static final DistributionStatisticConfig OPERATION = config(OPERATION_BUCKETS);

	private static final DistributionStatisticConfig SESSION = config(SESSION_BUCKETS);

	@Override
	public @Nullable DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
		if (id.getType() != Meter.Type.TIMER) {
			return config;
		}
		return switch (id.getName()) {
			case "mcp.client.operation.duration" -> config.merge(OPERATION);
			case McpClientSessionMetrics.NAME -> config.merge(SESSION);
			default -> config;
		};
	}

	private static DistributionStatisticConfig config(double[] seconds) {
		// a timer's histogram counts nanoseconds
		double[] nanos = Arrays.stream(seconds).map((s) -> Math.round(s * 1e9)).toArray();
		return DistributionStatisticConfig.builder().serviceLevelObjectives(nanos).build();
	}

}

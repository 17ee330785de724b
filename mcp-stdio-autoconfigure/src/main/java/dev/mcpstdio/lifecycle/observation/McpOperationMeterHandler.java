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

package dev.mcpstdio.lifecycle.observation;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.MeterObservationHandler;
import io.micrometer.observation.Observation;

/**
 * Records the timer of mcp.client.operation.duration, each timer looked up once.
 *
 * @author mcp-stdio authors
 */
public class McpOperationMeterHandler implements MeterObservationHandler<McpOperationContext> {

	// In place of Micrometer's default meter handler for this observation: a request
	// builds no tag list and no meter id, and the tags are exactly the convention's
	// low-cardinality key values (no error tag beside error.type, no long task timer
	// beside mcp.stdio.requests.pending). Auto-configured ahead of the default handler.

	/** Timers kept at most: the key values are bounded per server already. */
	private static final int MAX_TIMERS = 10_000;

	private final MeterRegistry registry;

	private final Map<KeyValues, Timer> timers = new ConcurrentHashMap<>();

	public McpOperationMeterHandler(MeterRegistry registry) {
		this.registry = registry;
	}

	@Override
	public void onStart(McpOperationContext context) {
		context.started(this.registry.config().clock().monotonicTime());
	}

	@Override
	public void onStop(McpOperationContext context) {
		long duration = this.registry.config().clock().monotonicTime() - context.startedNanos();
		timer(context).record(duration, TimeUnit.NANOSECONDS);
	}

	private Timer timer(McpOperationContext context) {
		KeyValues keyValues = context.getLowCardinalityKeyValues();
		Timer timer = this.timers.get(keyValues);
		if (timer == null) {
			Timer.Builder builder = Timer.builder(context.getName())
				.description("One request sent to an MCP server, from its send to its end");
			keyValues.forEach((keyValue) -> builder.tag(keyValue.getKey(), keyValue.getValue()));
			timer = builder.register(this.registry);
			if (this.timers.size() < MAX_TIMERS) {
				this.timers.putIfAbsent(keyValues, timer);
			}
		}
		return timer;
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		return context instanceof McpOperationContext;
	}

}

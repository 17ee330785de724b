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

import java.util.concurrent.TimeUnit;

import dev.mcpstdio.core.secrets.SecretValues;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link McpOperationMeterHandler}: one timer per set of key values, kept, with
 * exactly the convention's tags, timing from start to stop.
 *
 * @author mcp-stdio authors
 */
class McpOperationMeterHandlerTests {

	private final MockClock clock = new MockClock();

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry(SimpleConfig.DEFAULT, this.clock);

	private final ObservationRegistry registry = ObservationRegistry.create();

	private final OperationNames names = new OperationNames("files", SecretValues.NONE);

	McpOperationMeterHandlerTests() {
		this.registry.observationConfig().observationHandler(new McpOperationMeterHandler(this.meters));
	}

	@Test
	void eachRequestIsTimedFromStartToStopOnTheTimerOfItsKeyValues() {
		observe("r-1", null, 250);
		observe("r-2", null, 750);
		observe("r-3", "tool_error", 100);
		Timer succeeded = this.meters.get("mcp.client.operation.duration")
			.tag("gen_ai.tool.name", "read")
			.timers()
			.stream()
			.filter((timer) -> timer.getId().getTag("error.type") == null)
			.findFirst()
			.orElseThrow();
		assertThat(succeeded.count()).isEqualTo(2);
		assertThat(succeeded.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(1000);
		assertThat(succeeded.getId().getTags()).containsExactlyInAnyOrder(Tag.of("server", "files"),
				Tag.of("mcp.method.name", "tools/call"), Tag.of("gen_ai.tool.name", "read"),
				Tag.of("network.transport", "pipe"));
		Timer failed = this.meters.get("mcp.client.operation.duration").tag("error.type", "tool_error").timer();
		assertThat(failed.count()).isEqualTo(1);
		assertThat(failed.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(100);
		assertThat(this.meters.getMeters()).hasSize(2);
	}

	@Test
	void otherObservationsAreNotItsBusiness() {
		Observation.createNotStarted("other", this.registry).observe(() -> this.clock.add(5, TimeUnit.MILLISECONDS));
		assertThat(this.meters.getMeters()).isEmpty();
	}

	private void observe(String id, String errorType, long millis) {
		McpOperationContext context = new McpOperationContext(this.names.operation("tools/call", "read"), id);
		Observation observation = Observation.createNotStarted(null, DefaultMcpOperationObservationConvention.INSTANCE,
				() -> context, this.registry);
		observation.start();
		this.clock.add(millis, TimeUnit.MILLISECONDS);
		if (errorType != null) {
			context.setErrorType(errorType);
		}
		observation.stop();
	}

}

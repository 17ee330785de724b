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

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import dev.mcpstdio.lifecycle.ServerState;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the rules of {@link McpServersHealthIndicator}.
 *
 * @author mcp-stdio authors
 */
class McpServersHealthIndicatorTests {

	@Test
	void everyStateHasItsStatus() {
		Map<ServerState, Status> expected = new EnumMap<>(ServerState.class);
		expected.put(ServerState.RUNNING, Status.UP);
		expected.put(ServerState.DISABLED, Status.UP);
		// no process on purpose, until its next message
		expected.put(ServerState.IDLE, Status.UP);
		expected.put(ServerState.STARTING, Status.UNKNOWN);
		expected.put(ServerState.RESTARTING, Status.UNKNOWN);
		expected.put(ServerState.STOPPING, Status.OUT_OF_SERVICE);
		expected.put(ServerState.STOPPED, Status.OUT_OF_SERVICE);
		expected.put(ServerState.FAILED, Status.DOWN);
		assertThat(expected).as("a status for every state").containsOnlyKeys(ServerState.values());
		expected.forEach((state, status) -> assertThat(McpServersHealthIndicator.status(state)).as(state.name())
			.isEqualTo(status));
	}

	@Test
	void upWhenEveryEnabledServerRuns() {
		assertThat(status(List.of(ServerState.RUNNING, ServerState.DISABLED))).isEqualTo(Status.UP);
		assertThat(status(List.of())).isEqualTo(Status.UP);
	}

	@Test
	void downWhenAnyFailedWhateverElse() {
		assertThat(
				status(List.of(ServerState.RUNNING, ServerState.STOPPED, ServerState.RESTARTING, ServerState.FAILED)))
			.isEqualTo(Status.DOWN);
	}

	@Test
	void outOfServiceWhenStoppedOrStopping() {
		assertThat(status(List.of(ServerState.RUNNING, ServerState.STOPPED))).isEqualTo(Status.OUT_OF_SERVICE);
		assertThat(status(List.of(ServerState.STOPPING, ServerState.STARTING))).isEqualTo(Status.OUT_OF_SERVICE);
	}

	@Test
	void unknownWhileStartingOrRestarting() {
		assertThat(status(List.of(ServerState.RUNNING, ServerState.STARTING))).isEqualTo(Status.UNKNOWN);
		assertThat(status(List.of(ServerState.RESTARTING))).isEqualTo(Status.UNKNOWN);
	}

	@Test
	void aServerThatDoesNotCountIsNeverDownOrOutOfService() {
		for (ServerState state : ServerState.values()) {
			Status counted = McpServersHealthIndicator.status(state);
			Status optional = McpServersHealthIndicator.status(state, false);
			if (counted.equals(Status.DOWN) || counted.equals(Status.OUT_OF_SERVICE)) {
				assertThat(optional).as(state.name()).isEqualTo(Status.UP);
			}
			else {
				assertThat(optional).as(state.name()).isEqualTo(counted);
			}
			assertThat(McpServersHealthIndicator.status(state, true)).as(state.name()).isEqualTo(counted);
		}
	}

	private static Status status(List<ServerState> states) {
		return McpServersHealthIndicator.aggregate(states.stream().map(McpServersHealthIndicator::status).toList());
	}

}

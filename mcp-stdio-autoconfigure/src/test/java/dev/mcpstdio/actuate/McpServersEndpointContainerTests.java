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

import java.time.Duration;
import java.util.List;

import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.ContainerEngines;
import dev.mcpstdio.test.Fixtures;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link McpServersEndpoint} over real HTTP with a server run as a container
 * ({@code docker run -i}): its command is the user's, and its processes (the CLI's and
 * the container's) and their memory are counted. Skipped without an engine (saying why),
 * failed instead where {@value ContainerEngines#REQUIRE} is set, as in CI. Once the
 * context is closed, none of its containers is left ({@link NoneAliveAfterContext}).
 *
 * @author mcp-stdio authors
 */
@ActuateHttpTest
class McpServersEndpointContainerTests {

	private static final Fixtures fixtures = new Fixtures();

	private static final List<String> ARGS = List.of("run", "-i", "--rm", "--label", fixtures.containerLabel(), "-e",
			Fixtures.MARKER + "=" + fixtures.id(), ContainerEngines.IMAGE, "sh", "/srv/family.sh");

	private static String engine;

	@Autowired
	private RestTestClient client;

	@Autowired
	private McpStdioServers servers;

	/** Before the context: without an engine the class is skipped, not failed. */
	@BeforeAll
	static void engine() {
		engine = ContainerEngines.require();
	}

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		registry.add("management.endpoint.mcpservers.show-values", () -> "always");
		registry.add("mcp.stdio.servers.boxed.command", () -> engine);
		for (int i = 0; i < ARGS.size(); i++) {
			String arg = ARGS.get(i);
			registry.add("mcp.stdio.servers.boxed.args[" + i + "]", () -> arg);
		}
		registry.add("mcp.stdio.servers.boxed.env." + Fixtures.MARKER, fixtures::id);
		registry.add("mcp.stdio.servers.boxed.startup-timeout", () -> "60s");
	}

	@Test
	void theCommandIsTheUsersAndTheContainersProcessesAreCounted() {
		JsonNode boxed = awaitProcesses(4);
		assertThat(boxed.get("state").asString()).isEqualTo("RUNNING");
		assertThat(boxed.get("command").asString()).isEqualTo(engine + " " + String.join(" ", ARGS));
		// the CLI, the container's server and its two helpers (their sleeps come and go)
		assertThat(boxed.get("liveProcesses").asInt()).isGreaterThanOrEqualTo(4);
		assertThat(boxed.get("memoryBytes").asLong()).isPositive();
		assertThat(boxed.get("pid").asLong()).isEqualTo(this.servers.get("boxed").pid());
		assertThat(ContainerEngines.containers(fixtures.id())).hasSize(1);
	}

	private JsonNode awaitProcesses(int atLeast) {
		return Await.within(Duration.ofSeconds(20))
			.every(Duration.ofMillis(100))
			.value(this::read, (boxed) -> boxed.get("liveProcesses").asInt() >= atLeast);
	}

	private JsonNode read() {
		return ActuateTestApplication.getJson(this.client, "/actuator/mcpservers").get("servers").get("boxed");
	}

}

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

import java.nio.file.Path;
import java.time.Duration;
import java.util.function.BiConsumer;

import dev.mcpstdio.core.secrets.SecretSanitizer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.Sandboxes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link McpServersEndpoint} over real HTTP with a server sandboxed by
 * bubblewrap: its sandbox is shown, its command is the user's, and its processes,
 * {@code bwrap}'s included, are counted. Skipped where bubblewrap cannot sandbox (saying
 * why), failed instead where {@value Sandboxes#REQUIRE} is set, as in CI.
 *
 * @author mcp-stdio authors
 */
@ActuateHttpTest
class McpServersEndpointSandboxTests {

	private static final Fixtures fixtures = new Fixtures();

	private static final Path WRITABLE = Path.of("target").toAbsolutePath();

	private static final Path READABLE = Path.of("src", "test", "resources").toAbsolutePath();

	@Autowired
	private RestTestClient client;

	@Autowired
	private McpStdioServers servers;

	/** Before the context: without a sandbox the class is skipped, not failed. */
	@BeforeAll
	static void sandbox() {
		Sandboxes.assume();
	}

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		ActuateTestApplication.server(registry, fixtures, "ep-open", "echo.sh");
		BiConsumer<String, String> boxed = ActuateTestApplication.server(registry, fixtures, "ep-boxed", "echo.sh");
		boxed.accept("sandbox.enabled", "true");
		boxed.accept("sandbox.read-write[0]", WRITABLE.toString());
		boxed.accept("sandbox.read-only[0]", READABLE.toString());
	}

	@Test
	void theSandboxIsShownAndItsProcessesCounted() {
		// bwrap, its init in the sandbox's pid namespace, and the server
		JsonNode boxed = Await.within(Duration.ofSeconds(20))
			.every(Duration.ofMillis(100))
			.value(() -> read("ep-boxed"), (server) -> server.get("liveProcesses").asInt() >= 3);
		assertThat(boxed.get("state").asString()).isEqualTo("RUNNING");
		assertThat(boxed.get("pid").asLong()).isEqualTo(this.servers.get("ep-boxed").pid());
		assertThat(boxed.get("memoryBytes").asLong()).isPositive();
		// the user's command, not bwrap's (its arguments withheld by default)
		assertThat(boxed.get("command").asString()).isEqualTo("sh " + SecretSanitizer.MASK);
		assertThat(boxed.get("sandbox").toString()).isEqualTo(
				"{\"network\":\"none\",\"readWrite\":[\"" + WRITABLE + "\"],\"readOnly\":[\"" + READABLE + "\"]}");
		assertThat(boxed.propertyNames()).containsExactly("state", "initialized", "pid", "liveProcesses", "memoryBytes",
				"command", "startedAt", "sandbox", "restarts", "pendingRequests", "lastExit");
		assertThat(read("ep-open").has("sandbox")).as("a server without a sandbox").isFalse();
	}

	private JsonNode read(String server) {
		return ActuateTestApplication.getJson(this.client, "/actuator/mcpservers").get("servers").get(server);
	}

}

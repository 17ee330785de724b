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

package dev.mcpstdio.ai;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.mcpstdio.lifecycle.ForkedJvm;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application configured for Spring AI's own stdio transport, in a JVM of its own,
 * with the starter added and nothing else changed: the endpoint lists its server, and
 * SIGTERM to the JVM leaves none of the server's processes, its children included.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class AdoptedServersForkedJvmTests {

	private final Fixtures fixtures;

	AdoptedServersForkedJvmTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void endpointListsTheAdoptedServerAndSigtermLeavesNothing() throws Exception {
		String prefix = "--spring.ai.mcp.client.stdio.connections.demo.";
		List<String> args = new ArrayList<>(AiTestSupport.testServerCommand(prefix));
		args.addAll(List.of(prefix + "env." + Fixtures.MARKER + "=" + this.fixtures.id(), "--server.port=0",
				"--management.endpoints.web.exposure.include=health,mcpservers"));
		try (ForkedJvm jvm = ForkedJvm.start(AdoptingApplication.class.getName(), AdoptingApplication.READY, args)) {
			String[] ready = jvm.awaitLine(Duration.ofSeconds(90)).split(" ", 3);
			int port = Integer.parseInt(ready[1]);
			// the server and the two sleep children it started
			assertThat(this.fixtures.alive()).as(ready[2]).hasSize(3);
			HttpResponse<String> response = HttpClient.newHttpClient()
				.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/mcpservers"))
					.timeout(Duration.ofSeconds(30))
					.build(), HttpResponse.BodyHandlers.ofString());
			assertThat(response.statusCode()).isEqualTo(200);
			JsonNode demo = JsonMapper.shared().readTree(response.body()).path("servers").path("demo");
			assertThat(demo.path("state").asString()).as(response.body()).isEqualTo("RUNNING");
			assertThat(demo.path("initialized").asBoolean()).isTrue();
			assertThat(demo.path("liveProcesses").asInt()).isEqualTo(3);
			assertThat(jvm.output()).anyMatch((line) -> line.contains("Adopted MCP server 'demo' from "
					+ "spring.ai.mcp.client.stdio.connections.demo: mcp-stdio runs it"));
			// SIGTERM (through the handle: Process.destroy() would also close its output)
			assertThat(jvm.process().toHandle().destroy()).isTrue();
			int exitCode = jvm.awaitExit(Duration.ofSeconds(60));
			assertThat(exitCode).as("exit code, output:%n%s", String.join("\n", jvm.output())).isEqualTo(143);
			assertThat(this.fixtures.alive()).isEmpty();
			assertThat(String.join("\n", jvm.output())).contains("Stopped MCP server 'demo'");
		}
	}

}

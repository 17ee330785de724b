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

package dev.mcpstdio.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Stopping the sample app leaves no process behind, the children a tool spawned included.
 * The processes are counted from {@code /proc} by a marker this test gives both servers
 * (children keep it), not by the product's own census.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class SampleApplicationShutdownTests {

	private final Fixtures fixtures;

	SampleApplicationShutdownTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void stoppingTheAppLeavesNoServerProcess() throws Exception {
		String marker = "env." + Fixtures.MARKER + "=" + this.fixtures.id();
		ConfigurableApplicationContext context = SpringApplication.run(SampleApplication.class, "--server.port=0",
				"--mcp.stdio.servers.demo." + marker, "--mcp.stdio.servers.clock." + marker);
		try {
			McpStdioServers servers = context.getBean(McpStdioServers.class);
			McpStdioServer demo = servers.get("demo");
			McpStdioServer clock = servers.get("clock");
			String port = context.getEnvironment().getProperty("local.server.port");
			HttpResponse<String> response = HttpClient.newHttpClient()
				.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/api/tools/spawn_children"))
					.header("Content-Type", "application/json")
					.timeout(Duration.ofSeconds(30))
					.POST(HttpRequest.BodyPublishers.ofString("{\"count\":2}"))
					.build(), HttpResponse.BodyHandlers.ofString());
			assertThat(response.body()).contains("started children");
			// the two servers and the demo's two children
			assertThat(this.fixtures.alive()).hasSize(4).contains(demo.pid(), clock.pid());
		}
		finally {
			context.close();
		}
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

}

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

package dev.mcpstdio.lifecycle;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests with a real web server that an HTTP request in flight when the application stops
 * can still use an MCP server: the web server's graceful shutdown finishes it before the
 * servers stop.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class McpStdioWebShutdownTests {

	private final Fixtures fixtures;

	McpStdioWebShutdownTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void aRequestInFlightUsesTheServerWhileTheApplicationStops() throws Exception {
		SpringApplication application = new SpringApplication(WebApp.class);
		application.setRegisterShutdownHook(false);
		application.setDefaultProperties(Map.of("server.port", "0", "server.shutdown", "graceful",
				"spring.ai.mcp.client.enabled", "false", "mcp.stdio.servers.echo.command", "sh",
				"mcp.stdio.servers.echo.args", Fixtures.script("echo.sh"),
				"mcp.stdio.servers.echo.env." + Fixtures.MARKER, this.fixtures.id()));
		McpStdioServer server;
		CompletableFuture<HttpResponse<String>> response;
		try (ConfigurableApplicationContext context = application.run()) {
			int port = ((WebServerApplicationContext) context).getWebServer().getPort();
			server = context.getBean(McpStdioServers.class).get("echo");
			response = HttpClient.newHttpClient()
				.sendAsync(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/tool"))
					.timeout(Duration.ofSeconds(30))
					.build(), HttpResponse.BodyHandlers.ofString());
			assertThat(context.getBean(ToolController.class).arrived.await(30, TimeUnit.SECONDS)).isTrue();
			// the request now waits a second before it calls the server; the close
			// begins
		}
		HttpResponse<String> answer = response.get(30, TimeUnit.SECONDS);
		assertThat(answer.statusCode()).isEqualTo(200);
		assertThat(answer.body()).contains("\"echo\":\"tools/call\"");
		assertThat(server.state()).isEqualTo(ServerState.STOPPED);
		assertThat(this.fixtures.alive()).isEmpty();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(ToolController.class)
	static class WebApp {

	}

	@RestController
	static class ToolController {

		/** One per context: a test run again starts from a latch of its own. */
		final CountDownLatch arrived = new CountDownLatch(1);

		private final McpStdioServers servers;

		ToolController(McpStdioServers servers) {
			this.servers = servers;
		}

		@GetMapping("/tool")
		String tool() throws Exception {
			this.arrived.countDown();
			Thread.sleep(1000);
			return this.servers.get("echo")
				.request("web-1", "{\"jsonrpc\":\"2.0\",\"id\":\"web-1\",\"method\":\"tools/call\"}")
				.get(10, TimeUnit.SECONDS);
		}

	}

}

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

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.mcpstdio.core.server.ExitCause;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Await;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.MediaType;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample app over real HTTP, with its real servers: list and call tools, kill the
 * demo server and call again after its restart, and the lazy clock server started by its
 * first use, stopped when idle and started again by the next call.
 *
 * @author mcp-stdio authors
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "mcp.stdio.servers.clock.idle-timeout=3s")
@AutoConfigureRestTestClient
@DirtiesContext
class SampleApplicationTests {

	@Autowired
	RestTestClient client;

	@Autowired
	McpStdioServers servers;

	@Test
	void listsCallsAndSurvivesARestart() throws Exception {
		McpStdioServer clock = this.servers.get("clock");
		assertThat(clock.state()).isEqualTo(ServerState.IDLE);
		assertThat(clock.treeStats().liveProcesses()).isZero();
		String tools = this.client.get()
			.uri("/api/tools")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
		assertThat(tools).contains("\"echo\"", "\"spawn_children\"", "\"server_info\"", "\"now\"", "\"uptime\"");
		// listing the tools started the lazy clock
		assertThat(clock.clientConnection().generation()).isEqualTo(1);
		String echo = call("echo", "{\"text\":\"hello\"}");
		assertThat(echo).contains("hello");
		assertThat(call("spawn_children", "{\"count\":2}")).contains("started children");
		McpStdioServer demo = this.servers.get("demo");
		// the census shares a /proc snapshot for up to 100 ms: one taken before the
		// children started may still be read
		int counted = Await.within(Duration.ofSeconds(5))
			.every(Duration.ofMillis(50))
			.value(() -> demo.treeStats().liveProcesses(), (live) -> live == 3);
		assertThat(counted).isEqualTo(3);
		Matcher pid = Pattern.compile("pid (\\d+)").matcher(call("server_info", "{}"));
		assertThat(pid.find()).isTrue();
		ProcessHandle handle = ProcessHandle.of(Long.parseLong(pid.group(1))).orElseThrow();
		handle.destroyForcibly();
		handle.onExit().get(5, java.util.concurrent.TimeUnit.SECONDS);
		Await.within(Duration.ofSeconds(20))
			.until("demo restarted", () -> demo.state() == ServerState.RUNNING
					&& demo.clientConnection().generation() == 2 && demo.isInitialized());
		assertThat(call("echo", "{\"text\":\"after restart\"}")).contains("after restart");
		assertThat(demo.restarts()).isEqualTo(1);
		this.client.get().uri("/actuator/health").exchange().expectStatus().isOk();
		this.client.get().uri("/actuator/prometheus").exchange().expectStatus().isOk();
		// the clock, unused for its idle timeout, is stopped; health stays up
		Await.that("clock idle", () -> clock.state() == ServerState.IDLE && clock.lastExit() != null
				&& clock.treeStats().liveProcesses() == 0);
		assertThat(clock.lastExit().cause()).isEqualTo(ExitCause.IDLE);
		// after the demo's restart Spring AI lists every client's tools again: if the
		// clock was idle by then (a slow restart), that list started it once more
		long idleGeneration = clock.clientConnection().generation();
		assertThat(idleGeneration).isIn(1L, 2L);
		this.client.get().uri("/actuator/health").exchange().expectStatus().isOk();
		// and the next call starts it again, for the same Spring AI client
		assertThat(call("uptime", "{}")).contains("PT");
		assertThat(clock.clientConnection().generation()).isEqualTo(idleGeneration + 1);
	}

	private String call(String tool, String arguments) {
		return this.client.post()
			.uri("/api/tools/" + tool)
			.contentType(MediaType.APPLICATION_JSON)
			.body(arguments)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
	}

}

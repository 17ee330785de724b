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

import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoneAliveAfterContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.MediaType;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Step 5 of the README's walk-through over real HTTP: the clock server killed by the pid
 * the endpoint shows, its tools left out while the demo server's are served, health still
 * 200 (the clock is not required), and the demo server killed and restarted by its
 * policy, the tools still listed.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoneAliveAfterContext.class)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureRestTestClient
@DirtiesContext
class SampleApplicationOneServerDownTests {

	private static final Fixtures fixtures = new Fixtures();

	private static final Pattern PID = Pattern.compile("\"pid\":(\\d+)");

	@Autowired
	RestTestClient client;

	@Autowired
	McpStdioServers servers;

	@DynamicPropertySource
	static void markers(DynamicPropertyRegistry registry) {
		// so that the processes of this test can be told from any other's
		registry.add("mcp.stdio.servers.demo.env." + Fixtures.MARKER, fixtures::id);
		registry.add("mcp.stdio.servers.clock.env." + Fixtures.MARKER, fixtures::id);
	}

	@Test
	void aKilledServerLeavesTheOthersToolsAndTheInstanceUp() throws Exception {
		// step 2: listing the tools starts the lazy clock
		assertThat(get("/api/tools", 200)).contains("\"now\"", "\"echo\"");
		McpStdioServer clock = this.servers.get("clock");
		// step 5: its pid from the endpoint, as the README shows
		kill(pid(get("/actuator/mcpservers/clock", 200)));
		Await.that("clock FAILED", () -> clock.state() == ServerState.FAILED);
		Await.that("the clock's tools left out", () -> !get("/api/tools", 200).contains("\"now\""));
		assertThat(get("/api/tools", 200)).contains("\"echo\"", "\"server_info\"").doesNotContain("\"uptime\"");
		assertThat(post("now", "{}", 404)).contains("No tool named 'now'");
		assertThat(get("/actuator/health", 200)).contains("\"clock\":\"FAILED\"");
		assertThat(get("/actuator/mcpservers/clock", 200)).contains("\"exitCode\":137");
		// then the demo server, which its policy restarts
		McpStdioServer demo = this.servers.get("demo");
		long killed = pid(get("/actuator/mcpservers/demo", 200));
		kill(killed);
		// a call that reaches the process before its exit is noticed fails naming the
		// exit, by design; one after it waits for the restart
		Await.that("demo's exit noticed", () -> demo.lastExit() != null && demo.lastExit().pid() == killed);
		assertThat(post("echo", "{\"text\":\"still here\"}", 200)).contains("still here");
		Await.that("demo restarted", () -> demo.restarts() == 1 && demo.state() == ServerState.RUNNING);
		assertThat(get("/api/tools", 200)).contains("\"echo\"").doesNotContain("\"now\"");
		assertThat(get("/actuator/health", 200)).contains("\"demo\":\"RUNNING\"");
	}

	private String get(String uri, int status) {
		return this.client.get()
			.uri(uri)
			.exchange()
			.expectStatus()
			.isEqualTo(status)
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
	}

	private String post(String tool, String arguments, int status) {
		return this.client.post()
			.uri("/api/tools/" + tool)
			.contentType(MediaType.APPLICATION_JSON)
			.body(arguments)
			.exchange()
			.expectStatus()
			.isEqualTo(status)
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
	}

	private static long pid(String server) {
		Matcher pid = PID.matcher(server);
		assertThat(pid.find()).as("a pid in %s", server).isTrue();
		return Long.parseLong(pid.group(1));
	}

	private static void kill(long pid) throws Exception {
		ProcessHandle handle = ProcessHandle.of(pid).orElseThrow();
		handle.destroyForcibly();
		handle.onExit().get(5, TimeUnit.SECONDS);
	}

}

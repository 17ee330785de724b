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

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers.Outcome;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.mcp.customizer.McpClientCustomizer;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

import static dev.mcpstdio.ai.OneServerDownTests.callEcho;
import static dev.mcpstdio.ai.OneServerDownTests.toolNames;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring AI's tools follow a reload of the server set, through the real Spring AI
 * clients: added servers' tools appear, removed ones' go, changed ones' are listed anew.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class ReloadedToolsTests {

	private final Fixtures fixtures;

	@TempDir
	Path temp;

	ReloadedToolsTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void syncToolCallbacksFollowAReload() throws IOException {
		followsAReload("SYNC", "mcpToolCallbacks");
	}

	@Test
	void asyncToolCallbacksFollowAReload() throws IOException {
		followsAReload("ASYNC", "mcpAsyncToolCallbacks");
	}

	private void followsAReload(String type, String provider) throws IOException {
		Path file = this.temp.resolve("mcp.json");
		write(file, Map.of("kept", "k_", "changed", "c_", "removed", "r_"));
		AiTestSupport.runner()
			.withUserConfiguration(Customizers.class)
			.withPropertyValues("mcp.stdio.servers-configuration=" + file, "mcp.stdio.reload.enabled=false",
					"spring.ai.mcp.client.type=" + type, "mcp.stdio.defaults.shutdown.drain-timeout=500ms",
					"mcp.stdio.defaults.shutdown.stdin-close-timeout=1s",
					"mcp.stdio.defaults.shutdown.terminate-timeout=1s")
			.run((context) -> {
				ToolCallbackProvider tools = context.getBean(provider, ToolCallbackProvider.class);
				assertThat(toolNames(tools)).containsExactlyInAnyOrder(names("k_", "c_", "r_"));
				McpStdioServers servers = context.getBean(McpStdioServers.class);
				McpStdioServer kept = servers.get("kept");
				long keptPid = kept.pid();

				write(file, Map.of("kept", "k_", "changed", "c2_", "added", "a_"));
				assertThat(servers.reload().outcome()).isEqualTo(Outcome.APPLIED);
				assertThat(toolNames(tools)).containsExactlyInAnyOrder(names("k_", "c2_", "a_"));
				// each called on its own server: the kept one's process and session
				// untouched
				assertThat(callEcho(tools, "k_echo", "kept")).contains("kept");
				assertThat(callEcho(tools, "c2_echo", "changed")).contains("changed");
				assertThat(callEcho(tools, "a_echo", "added")).contains("added");
				assertThat(servers.get("kept")).isSameAs(kept);
				assertThat(kept.pid()).isEqualTo(keptPid);
				// the application's client customizers made the clients of the new
				// servers too
				assertThat(context.getBean(Customizers.class).customized)
					.contains("kept", "changed", "removed", "added")
					.filteredOn("changed"::equals)
					.hasSize(2);
				assertThat(kept.restarts()).isZero();
				if (type.equals("SYNC")) {
					// Spring AI's own client of the kept server still serves it
					assertThat(syncClientOf(context, "kept").ping()).isNotNull();
				}

				write(file, Map.of("kept", "k_"));
				assertThat(servers.reload().outcome()).isEqualTo(Outcome.APPLIED);
				assertThat(toolNames(tools)).containsExactlyInAnyOrder(names("k_"));
			});
		this.fixtures.assertNoneAlive(Duration.ofSeconds(10));
	}

	@Configuration(proxyBeanMethods = false)
	static class Customizers {

		final List<String> customized = new CopyOnWriteArrayList<>();

		@Bean
		McpClientCustomizer<McpClient.SyncSpec> syncCustomizer() {
			return (name, spec) -> this.customized.add(name);
		}

		@Bean
		McpClientCustomizer<McpClient.AsyncSpec> asyncCustomizer() {
			return (name, spec) -> this.customized.add(name);
		}

	}

	private static McpSyncClient syncClientOf(AssertableApplicationContext context, String server) {
		return AiTestSupport.syncClients(context)
			.stream()
			.filter((client) -> server.equals(client.getClientInfo().title()))
			.findFirst()
			.orElseThrow();
	}

	private static String[] names(String... prefixes) {
		List<String> names = new ArrayList<>();
		for (String prefix : prefixes) {
			for (String tool : List.of("echo", "pid", "children", "slow")) {
				names.add(prefix + tool);
			}
		}
		return names.toArray(new String[0]);
	}

	/**
	 * Write the file whole: each server runs the test server, its tools named by a
	 * prefix.
	 */
	private void write(Path file, Map<String, String> prefixes) throws IOException {
		Map<String, Object> servers = new LinkedHashMap<>();
		List<String> command = Fixtures.java(TestMcpServer.class.getName());
		prefixes.forEach((name, prefix) -> {
			List<String> args = new ArrayList<>(command.subList(1, command.size()));
			args.addAll(List.of("--tool-prefix", prefix));
			servers.put(name, Map.of("command", command.get(0), "args", args, "env",
					Map.of(Fixtures.MARKER, this.fixtures.id())));
		});
		Path next = file.resolveSibling(file.getFileName() + ".new");
		Files.writeString(next, JsonMapper.shared().writeValueAsString(Map.of("mcpServers", servers)));
		Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
	}

}

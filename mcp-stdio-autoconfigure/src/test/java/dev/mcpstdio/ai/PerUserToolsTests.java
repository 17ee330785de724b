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

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers.Outcome;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.core.env.MapPropertySource;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.context.SecurityContextImpl;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A per-user server through a real Spring AI client: each user's tools are those of their
 * own instance, and their calls go to it, whichever thread makes them.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class PerUserToolsTests {

	private final Fixtures fixtures;

	PerUserToolsTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@AfterEach
	void noUser() {
		SecurityContextHolder.clearContext();
	}

	@Test
	void eachUsersToolsAreThoseOfTheirOwnInstance() {
		List<String> properties = new ArrayList<>(AiTestSupport.testServer("gh", this.fixtures.id()));
		properties.add("mcp.stdio.servers.gh.instances=per-user");
		properties.add("spring.ai.mcp.client.toolcallback.enabled=true");
		AiTestSupport.runner().withPropertyValues(properties.toArray(String[]::new)).run((context) -> {
			assertThat(context).hasNotFailed();
			McpStdioServer gh = context.getBean(McpStdioServers.class).get("gh");
			assertThat(gh.state()).isEqualTo(ServerState.IDLE);
			ToolCallbackProvider provider = context.getBean("mcpToolCallbacks", ToolCallbackProvider.class);
			// no user: no tools of gh, and nothing started for it
			SecurityContextHolder.setContext(new SecurityContextImpl(new AnonymousAuthenticationToken("key",
					"anonymousUser", AuthorityUtils.createAuthorityList("ROLE_ANONYMOUS"))));
			assertThat(provider.getToolCallbacks()).isEmpty();
			assertThat(gh.instances()).isEmpty();
			signIn("alice");
			ToolCallback[] alices = provider.getToolCallbacks();
			assertThat(names(alices)).containsExactlyInAnyOrder("echo", "pid", "children", "slow");
			McpStdioServer alicesInstance = gh.instance();
			signIn("bob");
			ToolCallback[] bobs = provider.getToolCallbacks();
			McpStdioServer bobsInstance = gh.instance();
			assertThat(alicesInstance).isNotSameAs(bobsInstance);
			// each user's pid tool is answered by their own instance, also from a thread
			// with no user at all
			SecurityContextHolder.clearContext();
			assertThat(pids(alices)).singleElement().asString().contains(String.valueOf(alicesInstance.pid()));
			assertThat(CompletableFuture.supplyAsync(() -> pids(bobs)).get(60, TimeUnit.SECONDS)).singleElement()
				.asString()
				.contains(String.valueOf(bobsInstance.pid()));
			assertThat(alicesInstance.pid()).isNotEqualTo(bobsInstance.pid());
			assertThat(gh.instances()).hasSize(2);
			// a reload that changes the server stops every user's instance; the next
			// gathering gives each user a new one of the new server
			context.getEnvironment()
				.getPropertySources()
				.addFirst(new MapPropertySource("changed", Map.of("mcp.stdio.servers.gh.env.CHANGED", "yes")));
			McpStdioServers servers = context.getBean(McpStdioServers.class);
			assertThat(servers.reload().outcome()).isEqualTo(Outcome.APPLIED);
			assertThat(alicesInstance.state()).isEqualTo(ServerState.STOPPED);
			assertThat(bobsInstance.state()).isEqualTo(ServerState.STOPPED);
			assertThat(this.fixtures.alive()).isEmpty();
			signIn("alice");
			List<String> again = pids(provider.getToolCallbacks());
			McpStdioServer changed = servers.get("gh");
			assertThat(changed).isNotSameAs(gh);
			assertThat(again).singleElement().asString().contains(String.valueOf(changed.instance().pid()));
			assertThat(this.fixtures.alive()).containsExactly(changed.instance().pid());
		});
	}

	private static void signIn(String user) {
		SecurityContextHolder.setContext(new SecurityContextImpl(
				new TestingAuthenticationToken(user, null, AuthorityUtils.createAuthorityList("USER"))));
	}

	private static List<String> names(ToolCallback[] callbacks) {
		return Arrays.stream(callbacks).map((callback) -> callback.getToolDefinition().name()).toList();
	}

	/** The answer of the pid tool. */
	private static List<String> pids(ToolCallback[] callbacks) {
		return Arrays.stream(callbacks)
			.filter((callback) -> callback.getToolDefinition().name().equals("pid"))
			.map((callback) -> callback.call("{}"))
			.toList();
	}

}

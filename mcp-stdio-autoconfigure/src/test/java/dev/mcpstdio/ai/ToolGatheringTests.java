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

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.mcp.McpToolFilter;
import org.springframework.ai.mcp.McpToolNamePrefixGenerator;
import org.springframework.ai.mcp.SyncMcpToolCallbackProvider;
import org.springframework.ai.mcp.ToolContextToMcpMetaConverter;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static dev.mcpstdio.ai.AiTestSupport.properties;
import static dev.mcpstdio.ai.OneServerDownTests.provider;
import static dev.mcpstdio.ai.OneServerDownTests.toolNames;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter's tool callbacks, in place of Spring AI's: what Spring AI's provider
 * honours still works (filter, name prefixes, tool context to {@code _meta}, refresh on
 * {@code tools/list_changed}), a user's own provider wins, and a tool name two servers
 * share never makes the gathering fail.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(OutputCaptureExtension.class)
@ExtendWith(NoProcessLeft.class)
class ToolGatheringTests {

	private final Fixtures fixtures;

	ToolGatheringTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void theApplicationsFilterPrefixesAndMetaConverterAreHonoured() {
		AiTestSupport.runner()
			.withUserConfiguration(Customizers.class)
			.withPropertyValues(properties(AiTestSupport.testServer("alpha", this.fixtures.id(), "--offer-meta")))
			.run((context) -> {
				assertThat(context.getBean("mcpToolCallbacks")).isInstanceOf(McpStdioSyncToolCallbacks.class);
				ToolCallbackProvider provider = provider(context);
				// the filter left slow out, the generator named the rest
				assertThat(toolNames(provider)).containsExactlyInAnyOrder("alpha__echo", "alpha__pid",
						"alpha__children", "alpha__meta");
				// called by its name on the server
				assertThat(new ToolCallbackOf(provider, "alpha__echo").callback().call("{\"text\":\"named\"}"))
					.contains("named");
				// the tool context reaches the server as _meta, through the converter
				ToolCallback meta = new ToolCallbackOf(provider, "alpha__meta").callback();
				assertThat(meta.call("{}", new ToolContext(Map.of("tenant", "acme")))).contains("tenant")
					.contains("acme");
			});
	}

	@Test
	void toolsAreListedAgainWhenTheServerSaysTheyChanged() {
		AiTestSupport.runner()
			.withPropertyValues(properties(AiTestSupport.testServer("alpha", this.fixtures.id())))
			.run((context) -> {
				ToolCallbackProvider provider = provider(context);
				assertThat(toolNames(provider)).containsExactlyInAnyOrder("echo", "pid", "children", "slow");
				McpSyncClient client = AiTestSupport.syncClient(context);
				client.callTool(CallToolRequest.builder("add_tool").arguments(Map.of("name", "fresh")).build());
				Await.within(Duration.ofSeconds(20))
					.until("the new tool listed", () -> toolNames(provider).contains("fresh"));
			});
	}

	@Test
	void aUsersOwnProviderReplacesTheStarters() {
		AiTestSupport.runner()
			.withUserConfiguration(OwnProvider.class)
			.withPropertyValues(properties(AiTestSupport.testServer("alpha", this.fixtures.id())))
			.run((context) -> {
				assertThat(context).doesNotHaveBean(McpStdioSyncToolCallbacks.class);
				assertThat(context.getBean("ownTools")).isNotInstanceOf(McpStdioSyncToolCallbacks.class);
				assertThat(((ToolCallbackProvider) context.getBean("ownTools")).getToolCallbacks()).hasSize(4);
			});
	}

	@Test
	void aToolNameTwoServersShareIsOfferedOnceAndNothingFails(CapturedOutput output) {
		AiTestSupport.runner()
			.withPropertyValues(properties(AiTestSupport.testServer("first", this.fixtures.id()),
					AiTestSupport.testServer("second", this.fixtures.id(), "--tool-prefix", "second_")))
			.run((context) -> {
				ToolCallbackProvider provider = provider(context);
				assertThat(toolNames(provider)).hasSize(8).doesNotHaveDuplicates();
			});
		// Spring AI's default generator renames a second echo; without it, the names
		// clash
		AiTestSupport.runner()
			.withBean(McpToolNamePrefixGenerator.class, McpToolNamePrefixGenerator::noPrefix)
			.withPropertyValues(properties(AiTestSupport.testServer("first", this.fixtures.id()),
					AiTestSupport.testServer("twin", this.fixtures.id())))
			.run((context) -> {
				ToolCallbackProvider provider = provider(context);
				// Spring AI's own provider throws here, for every server's tools
				assertThat(toolNames(provider)).containsExactlyInAnyOrder("echo", "pid", "children", "slow");
				assertThat(toolNames(provider)).hasSize(4);
			});
		assertThat(AiTestSupport.count(output.getOut(), "MCP server 'twin' offers a tool named 'echo', a name another "
				+ "server's tool has already: it is left out"))
			.isOne();
	}

	/** The application's customizers of its MCP tools. */
	@Configuration(proxyBeanMethods = false)
	static class Customizers {

		@Bean
		McpToolFilter slowLeftOut() {
			return (connection, tool) -> !tool.name().equals("slow");
		}

		@Bean
		McpToolNamePrefixGenerator serverPrefix() {
			return (connection, tool) -> connection.clientInfo().title() + "__" + tool.name();
		}

		@Bean
		ToolContextToMcpMetaConverter tenantMeta() {
			return (toolContext) -> Map.of("tenant", String.valueOf(toolContext.getContext().get("tenant")));
		}

	}

	/** A user's own MCP tool provider. */
	@Configuration(proxyBeanMethods = false)
	static class OwnProvider {

		@Bean
		SyncMcpToolCallbackProvider ownTools(List<McpSyncClient> clients) {
			return SyncMcpToolCallbackProvider.builder().mcpClients(clients).build();
		}

	}

	/** One tool of a provider. */
	record ToolCallbackOf(ToolCallbackProvider provider, String name) {

		ToolCallback callback() {
			return Arrays.stream(this.provider.getToolCallbacks())
				.filter((callback) -> callback.getToolDefinition().name().equals(this.name))
				.findFirst()
				.orElseThrow(() -> new AssertionError("no tool " + this.name));
		}

	}

}

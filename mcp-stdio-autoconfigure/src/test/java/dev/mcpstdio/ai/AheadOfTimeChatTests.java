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

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.mcpstdio.lifecycle.ForkedJvm;
import dev.mcpstdio.test.AheadOfTime;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Spring AI application ({@link ChatApplication}) processed ahead of time with one
 * server and run with {@code -Dspring.aot.enabled=true} and another: a real
 * {@code ChatClient} over a scripted model chats through Spring AI's MCP tools, and
 * Spring AI's tool calling calls the server configured when the application started,
 * through the starter's transport; SIGTERM stops it, nothing left behind.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class AheadOfTimeChatTests {

	private final Fixtures fixtures;

	@TempDir
	Path temp;

	AheadOfTimeChatTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void processedAChatCallsTheToolsOfTheServerConfiguredWhenItStarts() throws Exception {
		// at build time a server whose tools have other names: were it frozen in the
		// build, the chat would find no tool 'pid'
		List<String> build = new ArrayList<>(List.of("spring.main.web-application-type=none"));
		build.addAll(AiTestSupport.testServer("built", this.fixtures.id(), "--tool-prefix", "built_"));
		AheadOfTime application = AheadOfTime.process(ChatApplication.class.getName(), this.temp.resolve("build"),
				(entry) -> true, arguments(build));
		assertThat(application
			.generated("dev/mcpstdio/autoconfigure/ai/McpStdioAiAutoConfiguration__BeanDefinitions.java")).isTrue();
		String echo = "chosen-at-run-time-" + UUID.randomUUID();
		List<String> run = new ArrayList<>(List.of("spring.main.web-application-type=none",
				"spring.main.keep-alive=true", "logging.pattern.console=%m%n", "chat.echo=" + echo));
		run.addAll(AiTestSupport.testServer("chat", this.fixtures.id()));
		try (ForkedJvm jvm = ForkedJvm.start(application.java(arguments(run)), ChatApplication.ANSWERED)) {
			String answer = jvm.awaitLine(Duration.ofSeconds(90));
			assertThat(jvm.output())
				.anySatisfy((line) -> assertThat(line).startsWith("Starting AOT-processed ChatApplication"))
				.anySatisfy((line) -> assertThat(line).startsWith("Started MCP server 'chat'"))
				.noneSatisfy((line) -> assertThat(line).contains("'built'"));
			// the answers of the server's process, which the test finds by its marker
			List<Long> alive = this.fixtures.alive();
			assertThat(alive).hasSize(1);
			assertThat(answer).startsWith(ChatApplication.ANSWERED + ScriptedChatModel.ANSWER)
				.contains("\"" + alive.get(0) + "\"")
				.contains(echo);
			assertThat(jvm.process().toHandle().destroy()).isTrue();
			assertThat(jvm.awaitExit(Duration.ofSeconds(60))).as(() -> String.join("\n", jvm.output())).isEqualTo(143);
			assertThat(jvm.output()).anySatisfy((line) -> assertThat(line).startsWith("Stopped MCP server 'chat'"));
		}
		this.fixtures.assertNoneAlive(Duration.ofSeconds(10));
	}

	private static String[] arguments(List<String> properties) {
		return properties.stream().map((property) -> "--" + property).toArray(String[]::new);
	}

}

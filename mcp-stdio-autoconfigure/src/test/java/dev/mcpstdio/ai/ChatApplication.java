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

import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * A Spring AI application with a {@link ScriptedChatModel} bean, processed ahead of time
 * by {@link AheadOfTimeChatTests}: once started, it chats through a real
 * {@link ChatClient} with Spring AI's MCP tools; the model asks for the tools {@code pid}
 * and {@code echo} (the text of {@code chat.echo}, read at run time) and the answer is
 * logged after {@value #ANSWERED}. Not component-scanned (a
 * {@code @SpringBootApplication} in {@code dev.mcpstdio.aot} would be scanned by
 * {@code PlainApplication}, whose class path has no Spring AI).
 *
 * @author mcp-stdio authors
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class ChatApplication {

	/** How the logged answer of the chat begins. */
	public static final String ANSWERED = "Chat answered: ";

	private static final Log logger = LogFactory.getLog(ChatApplication.class);

	public static void main(String[] args) {
		SpringApplication.run(ChatApplication.class, args);
	}

	@Bean
	ChatModel scriptedChatModel(Environment environment) {
		Map<String, String> calls = new LinkedHashMap<>();
		calls.put("pid", "{}");
		calls.put("echo",
				JsonMapper.shared().writeValueAsString(Map.of("text", environment.getRequiredProperty("chat.echo"))));
		return new ScriptedChatModel(calls);
	}

	@Bean
	ApplicationRunner chat(ChatModel model, ToolCallbackProvider tools) {
		return (args) -> logger.info(ANSWERED + ChatClient.builder(model)
			.build()
			.prompt("What is the MCP server's pid? And echo my text.")
			.toolCallbacks(tools)
			.call()
			.content());
	}

}

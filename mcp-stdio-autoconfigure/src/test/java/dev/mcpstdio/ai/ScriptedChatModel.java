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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.AssistantMessage.ToolCall;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;

/**
 * A chat model that asks for tool calls, then answers with what the tools said: under a
 * real {@link org.springframework.ai.chat.client.ChatClient}, Spring AI's tool calling
 * makes the calls.
 *
 * @author mcp-stdio authors
 */
final class ScriptedChatModel implements ChatModel {

	/** How its answer begins; what the tool said follows. */
	static final String ANSWER = "The tool answered: ";

	private final List<ToolCall> toolCalls = new ArrayList<>();

	private final List<String> offeredTools = new CopyOnWriteArrayList<>();

	ScriptedChatModel(String tool, String arguments) {
		this(Map.of(tool, arguments));
	}

	/**
	 * A model that asks for several tool calls at once.
	 * @param calls each tool's name and the JSON of its arguments, in order
	 */
	ScriptedChatModel(Map<String, String> calls) {
		calls.forEach((tool, arguments) -> this.toolCalls
			.add(new ToolCall("call-" + (this.toolCalls.size() + 1), "function", tool, arguments)));
	}

	@Override
	public ChatResponse call(Prompt prompt) {
		if (prompt.getOptions() instanceof ToolCallingChatOptions options && options.getToolCallbacks() != null) {
			options.getToolCallbacks()
				.forEach((callback) -> this.offeredTools.add(callback.getToolDefinition().name()));
		}
		List<Message> messages = prompt.getInstructions();
		if (messages.get(messages.size() - 1) instanceof ToolResponseMessage response) {
			String said = response.getResponses()
				.stream()
				.map(ToolResponseMessage.ToolResponse::responseData)
				.collect(Collectors.joining(", "));
			return new ChatResponse(List.of(new Generation(new AssistantMessage(ANSWER + said))));
		}
		AssistantMessage toolCall = AssistantMessage.builder().content("").toolCalls(this.toolCalls).build();
		return new ChatResponse(List.of(new Generation(toolCall)));
	}

	@Override
	public ChatOptions getOptions() {
		return ToolCallingChatOptions.builder().build();
	}

	List<String> offeredTools() {
		return this.offeredTools;
	}

}

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

import java.util.List;
import java.util.Map;

import dev.mcpstdio.McpServerExitedException;
import dev.mcpstdio.McpStdioException;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse.JSONRPCError;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.execution.ToolExecutionException;
import org.springframework.ai.tool.metadata.ToolMetadata;

/**
 * A tool of an mcp-stdio server whose calls tell the model why the server could not
 * answer.
 *
 * @param delegate the tool callback of Spring AI's client
 * @param server the server's name
 * @author mcp-stdio authors
 */
record ExitTellingToolCallback(ToolCallback delegate, String server) implements ToolCallback {

	@Override
	public ToolDefinition getToolDefinition() {
		return this.delegate.getToolDefinition();
	}

	@Override
	public ToolMetadata getToolMetadata() {
		return this.delegate.getToolMetadata();
	}

	@Override
	public String call(String toolInput) {
		return call(toolInput, null);
	}

	@Override
	public String call(String toolInput, @Nullable ToolContext toolContext) {
		try {
			return this.delegate.call(toolInput, toolContext);
		}
		catch (McpError ex) {
			// Spring AI rethrows every JSON-RPC error as a hard failure of the chat:
			// the errors mcp-stdio makes for an exit become a failure of the tool
			// call, which the model is told
			JSONRPCError own = McpStdioClientTransport.ownError(ex, this.server);
			if (own == null) {
				throw ex;
			}
			throw new ToolExecutionException(getToolDefinition(), exceptionOf(own));
		}
	}

	/** The server's exit, or its stop, as an exception. */
	private McpStdioException exceptionOf(JSONRPCError error) {
		Map<?, ?> data = (Map<?, ?>) error.data();
		if (!(data.get("exitCode") instanceof Number code)) {
			return new McpStdioException(this.server, error.message());
		}
		List<String> tail = (data.get("stderrTail") instanceof List<?> lines)
				? lines.stream().map(String::valueOf).toList() : List.of();
		return new McpServerExitedException(this.server, code.intValue(), tail, error.message());
	}

	@Override
	public String toString() {
		return this.delegate.toString();
	}

}

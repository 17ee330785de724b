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

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.ServerLease;
import dev.mcpstdio.lifecycle.ServerUser;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse.JSONRPCError;
import io.modelcontextprotocol.spec.McpSchema.Tool;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.execution.ToolExecutionException;

/**
 * A tool of a per-user server: each call holds its user's instance while it runs, and a
 * refusal is the call's failure, which the model is told.
 *
 * @param tools the tools of the per-user server
 * @param tool the tool as an instance listed it
 * @param definition its definition, under the name it is offered by
 * @param user the user it was gathered for, else {@code null}: the user calling
 * @author mcp-stdio authors
 */
record PerUserToolCallback(PerUserTools tools, Tool tool, ToolDefinition definition,
		@Nullable ServerUser user) implements ToolCallback {

	@Override
	public ToolDefinition getToolDefinition() {
		return this.definition;
	}

	@Override
	public String call(String toolInput) {
		return call(toolInput, null);
	}

	@Override
	public String call(String toolInput, @Nullable ToolContext toolContext) {
		McpStdioServer server = this.tools.server();
		ServerUser caller = (this.user != null) ? this.user : server.user();
		if (caller == null) {
			throw new ToolExecutionException(this.definition, server.noUser());
		}
		ServerLease lease;
		try {
			lease = server.lease(caller);
		}
		catch (McpStdioException ex) {
			throw new ToolExecutionException(this.definition, ex);
		}
		try {
			InstanceClient client = this.tools.clientOf(lease.instance());
			try {
				client.list();
				return client.callback(this.tool, this.definition.name()).call(toolInput, toolContext);
			}
			catch (ToolExecutionException ex) {
				throw ex;
			}
			catch (McpStdioException ex) {
				throw new ToolExecutionException(this.definition, ex);
			}
			catch (RuntimeException ex) {
				// the instance could not start (the SDK wraps the failed initialize),
				// or a client closed with its instance before its session existed
				// failed inside the SDK: said as what happened
				McpStdioException why = client.isClosed() ? client.stopped(ex) : reason(ex, server.name());
				if (why != null) {
					throw new ToolExecutionException(this.definition, why);
				}
				throw ex;
			}
		}
		finally {
			lease.close();
		}
	}

	/**
	 * Return what mcp-stdio said of a failure within a client's failure: its own
	 * exception, or its own JSON-RPC error (an exit, a start that failed).
	 */
	private static @Nullable McpStdioException reason(Throwable failure, String server) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof McpStdioException own) {
				return own;
			}
			JSONRPCError error = McpStdioClientTransport.ownError(cause, server);
			if (error != null) {
				return new McpStdioException(server, error.message());
			}
		}
		return null;
	}

}

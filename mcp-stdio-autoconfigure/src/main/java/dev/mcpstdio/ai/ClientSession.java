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

import java.util.Map;

import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCRequest;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import org.jspecify.annotations.Nullable;

/**
 * Where a client's MCP session stands across the processes of its server: which process
 * generation its {@code initialize} went to, which one answered it, and whether that
 * server offers tools.
 *
 * @author mcp-stdio authors
 */
final class ClientSession {

	/** The client's initialize request, replayed to a process that has not seen it. */
	private volatile @Nullable JSONRPCRequest initialize;

	/** The generation the client's initialize request was sent to. */
	private volatile long sentTo;

	/** The generation whose process answered initialize, 0 for none. */
	private volatile long answeredBy;

	/** Whether the session's server offers tools: the client lists them. */
	private volatile boolean toolsOffered;

	/** The client sends its initialize to a process: a new session. */
	void initializeSent(JSONRPCRequest request, long generation) {
		this.initialize = request;
		this.sentTo = generation;
	}

	/** Whether the client's initialize went to the process of that generation. */
	boolean initializeSentTo(long generation) {
		return this.sentTo == generation;
	}

	/** The process the initialize went to answered it. */
	void initialized(JSONRPCResponse answer) {
		this.answeredBy = this.sentTo;
		this.toolsOffered = offersTools(answer);
	}

	/**
	 * Return the initialize to replay to the process of that generation, if it needs one.
	 * @param generation the server's current process generation
	 * @return the client's initialize, or {@code null} when there is no session or that
	 * process answered it
	 */
	@Nullable JSONRPCRequest replayFor(long generation) {
		return (this.answeredBy == 0 || this.answeredBy == generation) ? null : this.initialize;
	}

	/**
	 * The process of that generation answered the replayed initialize.
	 * @return whether it offers tools
	 */
	boolean resumed(long generation, @Nullable JSONRPCMessage answer) {
		this.answeredBy = generation;
		this.toolsOffered = offersTools(answer);
		return this.toolsOffered;
	}

	private static boolean offersTools(@Nullable JSONRPCMessage answer) {
		return answer instanceof JSONRPCResponse response && response.result() instanceof Map<?, ?> result
				&& result.get("capabilities") instanceof Map<?, ?> capabilities && capabilities.get("tools") != null;
	}

}

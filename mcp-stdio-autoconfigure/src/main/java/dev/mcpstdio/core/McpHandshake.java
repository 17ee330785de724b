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

package dev.mcpstdio.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.support.Futures;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The MCP {@code initialize} handshake that mcp-stdio performs itself when no MCP client
 * (such as Spring AI's) does: {@code initialize}, its answer, then
 * {@code notifications/initialized}.
 *
 * @author mcp-stdio authors
 */
public final class McpHandshake {

	/** The MCP protocol version the handshake offers. */
	public static final String PROTOCOL_VERSION = "2025-06-18";

	private static final AtomicLong ids = new AtomicLong();

	private McpHandshake() {
	}

	/**
	 * Initialize a running server.
	 * @param process the server
	 * @param timeout how long it may take to answer
	 * @throws McpStdioException if it did not answer in time or refused;
	 * {@link dev.mcpstdio.McpServerExitedException} if it ended first
	 */
	public static void perform(StdioServerProcess process, Duration timeout) {
		String id = "mcp-stdio-initialize-" + ids.incrementAndGet();
		String request = "{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"method\":\"initialize\",\"params\":"
				+ "{\"protocolVersion\":\"" + PROTOCOL_VERSION + "\",\"capabilities\":{},"
				+ "\"clientInfo\":{\"name\":\"mcp-stdio\",\"version\":\"1.0\"}}}";
		String name = process.name();
		CompletableFuture<String> answer = process.request(id, request);
		String response;
		try {
			response = Futures.await(answer, timeout, name, "answer initialize",
					"; raise mcp.stdio.servers." + name + ".startup-timeout if it is just slow to start");
		}
		finally {
			// Given up on: it must not hold the drain of the stop that follows
			answer.cancel(false);
		}
		JsonNode error;
		try {
			error = JsonMapper.shared().readTree(response).get("error");
		}
		catch (JacksonException ex) {
			throw new McpStdioException(name, "MCP server '" + name + "' answered initialize with invalid JSON");
		}
		if (error != null && !error.isNull()) {
			throw new McpStdioException(name, "MCP server '" + name + "' refused initialize: "
					+ process.spec().sanitize(error.path("message").asString("")));
		}
		process.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
	}

}

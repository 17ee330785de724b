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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import dev.mcpstdio.core.ExitInfo;
import dev.mcpstdio.core.McpHandshake;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.ServerState;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCRequest;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Answers a client in the place of its server while the server does not run ({@code
 * FAILED}, or stopped by an operator) and the application serves, so that one server's
 * state never makes Spring AI's tool callbacks, which list every client's tools, fail for
 * the others. A list request gets an empty list and {@code initialize} a stand-in answer,
 * with one WARN per absence; everything else still goes to the server and fails naming
 * why it does not run, and a lazy or {@code IDLE} server is not absent.
 *
 * @author mcp-stdio authors
 */
final class AbsentServer {

	private static final Log logger = LogFactory.getLog(McpStdioClientTransport.class);

	/** The list requests answered with an empty list, and the key of that list. */
	private static final Map<String, String> LISTS = Map.of(McpSchema.METHOD_TOOLS_LIST, "tools",
			McpSchema.METHOD_PROMPT_LIST, "prompts", McpSchema.METHOD_RESOURCES_LIST, "resources",
			McpSchema.METHOD_RESOURCES_TEMPLATES_LIST, "resourceTemplates");

	private final McpStdioServer server;

	private final BooleanSupplier serving;

	private final AtomicBoolean warned = new AtomicBoolean();

	/** The generation given up on by the transport, 0 for none. */
	private volatile long givenUpGeneration;

	private volatile @Nullable String givenUpReason;

	/**
	 * Create the stand-in of a server.
	 * @param server the server
	 * @param serving whether the application serves (see {@link ServingWindow})
	 */
	AbsentServer(McpStdioServer server, BooleanSupplier serving) {
		this.server = server;
		this.serving = serving;
	}

	/**
	 * Return whether the server does not run, for no reason that passes by itself, while
	 * the application serves.
	 * @return whether its lists are answered in its place
	 */
	boolean isAbsent() {
		if (!this.serving.getAsBoolean()) {
			return false;
		}
		ServerState state = this.server.state();
		return state == ServerState.FAILED || state == ServerState.STOPPING || state == ServerState.STOPPED
				|| (this.givenUpGeneration != 0
						&& this.givenUpGeneration == this.server.clientConnection().generation());
	}

	/**
	 * Return whether a request is one this answers in the server's place.
	 * @param method the request's method
	 * @return whether it is {@code initialize} or a list
	 */
	static boolean answers(String method) {
		return McpSchema.METHOD_INITIALIZE.equals(method) || LISTS.containsKey(method);
	}

	/**
	 * Answer a request in the place of the server, with one WARN per absence.
	 * @param request {@code initialize} or a list request (see {@link #answers(String)})
	 * @return the answer
	 */
	JSONRPCResponse answer(JSONRPCRequest request) {
		warnOnce();
		String list = LISTS.get(request.method());
		Object result = (list != null) ? Map.of(list, List.of()) : initializeResult(request);
		return new JSONRPCResponse(McpSchema.JSONRPC_VERSION, request.id(), result, null);
	}

	/**
	 * Treat the current process as absent: the transport gave up on it (it did not answer
	 * {@code initialize} within {@code startup-timeout}) and the server is being given
	 * up.
	 * @param reason why
	 */
	void gaveUp(String reason) {
		this.givenUpReason = reason;
		this.givenUpGeneration = this.server.clientConnection().generation();
	}

	/**
	 * The server runs again: the next absence is warned about again.
	 */
	void present() {
		this.warned.set(false);
	}

	private Map<String, Object> initializeResult(JSONRPCRequest request) {
		// the version the client asked for: the one it supports
		Object version = (request.params() instanceof McpSchema.InitializeRequest initialize)
				? initialize.protocolVersion()
				: (request.params() instanceof Map<?, ?> params) ? params.get("protocolVersion") : null;
		Map<String, Object> listChanged = Map.of("listChanged", true);
		return Map.of("protocolVersion", (version != null) ? version : McpHandshake.PROTOCOL_VERSION, "capabilities",
				Map.of("tools", listChanged, "prompts", listChanged, "resources", listChanged), "serverInfo",
				Map.of("name", this.server.name(), "version", "unavailable"), "instructions",
				"MCP server '" + this.server.name() + "' is not running; mcp-stdio answers in its place until it "
						+ "runs again");
	}

	private void warnOnce() {
		if (!this.warned.compareAndSet(false, true)) {
			return;
		}
		boolean givenUp = this.givenUpGeneration != 0
				&& this.givenUpGeneration == this.server.clientConnection().generation();
		String state = givenUp ? ServerState.FAILED.name() : this.server.state().name();
		String reason = givenUp ? this.givenUpReason : reason();
		logger.warn("MCP server '" + this.server.name() + "' is " + state + ": its tools are left out of Spring AI's "
				+ "tool callbacks until it runs again" + ((reason != null) ? " (" + reason + ")" : ""));
	}

	/** Why a failed server does not run: its last failure, else its last exit. */
	private @Nullable String reason() {
		if (this.server.state() != ServerState.FAILED) {
			return null;
		}
		String failure = this.server.lastFailure();
		if (failure != null) {
			return failure;
		}
		ExitInfo exit = this.server.lastExit();
		return (exit != null) ? exit.message() : null;
	}

}

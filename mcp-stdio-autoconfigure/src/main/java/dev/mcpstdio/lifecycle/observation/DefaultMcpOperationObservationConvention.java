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

package dev.mcpstdio.lifecycle.observation;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

/**
 * The default convention of mcp.client.operation.duration, after OpenTelemetry's MCP
 * conventions.
 *
 * @author mcp-stdio authors
 */
public class DefaultMcpOperationObservationConvention implements McpOperationObservationConvention {

	// jsonrpc.request.id is the only high-cardinality key value, and {mcp.method.name}
	// {target} the contextual name (a span's), the target being the tool or prompt, else
	// the server. The key values of each kind of request are built once and kept, so that
	// a request allocates none.

	/** The shared instance. */
	public static final DefaultMcpOperationObservationConvention INSTANCE = new DefaultMcpOperationObservationConvention();

	/** The observation's name, and so its timer's. */
	public static final String NAME = "mcp.client.operation.duration";

	/** The server's name, as configured. */
	public static final String SERVER = "server";

	/** The request's method. */
	public static final String METHOD_NAME = "mcp.method.name";

	/** The tool of a {@code tools/call}. */
	public static final String TOOL_NAME = "gen_ai.tool.name";

	/** The prompt of a {@code prompts/get}. */
	public static final String PROMPT_NAME = "gen_ai.prompt.name";

	/** The transport: {@value #PIPE} for stdio. */
	public static final String NETWORK_TRANSPORT = "network.transport";

	/** Why the request failed, absent when it did not. */
	public static final String ERROR_TYPE = "error.type";

	/** The request's id. */
	public static final String REQUEST_ID = "jsonrpc.request.id";

	/** The value of {@value #NETWORK_TRANSPORT} for stdio. */
	public static final String PIPE = "pipe";

	/** Kinds of requests kept at most (they are bounded per server already). */
	private static final int MAX_CACHED = 10_000;

	private final Map<OperationNames.Operation, Cached> cache = new ConcurrentHashMap<>();

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(McpOperationContext context) {
		return cached(context).contextualName();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(McpOperationContext context) {
		Cached cached = cached(context);
		String errorType = context.getErrorType();
		if (errorType == null) {
			return cached.succeeded();
		}
		// error types are bounded per server (OperationNames)
		return cached.failed()
			.computeIfAbsent(errorType, (type) -> cached.succeeded().and(KeyValue.of(ERROR_TYPE, type)));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(McpOperationContext context) {
		return KeyValues.of(REQUEST_ID, context.getRequestId());
	}

	/**
	 * Build the key values of a request that did not fail; called once per kind of
	 * request.
	 * @param context the request
	 * @return its key values, {@code error.type} aside
	 */
	protected KeyValues keyValues(McpOperationContext context) {
		KeyValues keyValues = KeyValues.of(KeyValue.of(SERVER, context.getServerName()),
				KeyValue.of(METHOD_NAME, context.getMethod()), KeyValue.of(NETWORK_TRANSPORT, PIPE));
		if (context.getToolName() != null) {
			keyValues = keyValues.and(KeyValue.of(TOOL_NAME, context.getToolName()));
		}
		if (context.getPromptName() != null) {
			keyValues = keyValues.and(KeyValue.of(PROMPT_NAME, context.getPromptName()));
		}
		return keyValues;
	}

	/**
	 * Build the contextual name of a request; called once per kind of request.
	 * @param context the request
	 * @return {@code {mcp.method.name} {target}}
	 */
	protected String contextualName(McpOperationContext context) {
		return context.getMethod() + " " + context.getTarget();
	}

	private Cached cached(McpOperationContext context) {
		OperationNames.Operation operation = context.operation();
		Cached cached = this.cache.get(operation);
		if (cached == null) {
			cached = new Cached(keyValues(context), contextualName(context), new ConcurrentHashMap<>());
			if (this.cache.size() < MAX_CACHED) {
				cached = Objects.requireNonNullElse(this.cache.putIfAbsent(operation, cached), cached);
			}
		}
		return cached;
	}

	/** What one kind of request gets; {@code failed} by error type. */
	private record Cached(KeyValues succeeded, String contextualName, Map<String, KeyValues> failed) {

	}

	@Override
	public String toString() {
		return "DefaultMcpOperationObservationConvention";
	}

}

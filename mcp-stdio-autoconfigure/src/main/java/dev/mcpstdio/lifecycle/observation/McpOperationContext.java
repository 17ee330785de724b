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

import java.util.LinkedHashMap;
import java.util.Map;

import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.Propagator;
import io.micrometer.observation.transport.SenderContext;
import org.jspecify.annotations.Nullable;

/**
 * The context of one JSON-RPC request sent to an MCP server.
 *
 * @author mcp-stdio authors
 */
public class McpOperationContext extends SenderContext<McpOperationContext> {

	// A SenderContext of kind CLIENT whose carrier is the context itself, so that a
	// tracer's propagator hands it the trace context to put into the request's
	// params._meta. Names that come from the request and the error type are bounded per
	// server: past the bound they read _OTHER.

	private static final Propagator.Setter<McpOperationContext> SETTER = (context, key, value) -> context.propagate(key,
			value);

	private final OperationNames.Operation operation;

	private final String requestId;

	private volatile @Nullable String errorType;

	private @Nullable Map<String, String> propagated;

	private volatile long startedNanos;

	/**
	 * Create the context of a request, for a convention's tests.
	 * @param serverName the server's name
	 * @param method the request's method
	 * @param toolName the tool of a {@code tools/call}, or {@code null}
	 * @param promptName the prompt of a {@code prompts/get}, or {@code null}
	 * @param requestId the request's id, as text
	 */
	McpOperationContext(OperationNames.Operation operation, String requestId) {
		super(SETTER, Kind.CLIENT);
		this.operation = operation;
		// an attribute of the span: bounded, whoever chose the id
		this.requestId = (requestId.length() <= OperationNames.MAX_LENGTH) ? requestId
				: requestId.substring(0, OperationNames.MAX_LENGTH) + "...";
		setCarrier(this);
		setRemoteServiceName(operation.server());
	}

	/**
	 * Return the name of the server the request was sent to.
	 * @return the server's name
	 */
	public String getServerName() {
		return this.operation.server();
	}

	/**
	 * Return the request's method ({@code mcp.method.name}).
	 * @return the method, or {@code _OTHER}
	 */
	public String getMethod() {
		return this.operation.method();
	}

	/**
	 * Return the tool a {@code tools/call} calls ({@code gen_ai.tool.name}).
	 * @return the tool's name, {@code _OTHER}, or {@code null} for other methods
	 */
	public @Nullable String getToolName() {
		return this.operation.toolName();
	}

	/**
	 * Return the prompt a {@code prompts/get} gets ({@code gen_ai.prompt.name}).
	 * @return the prompt's name, {@code _OTHER}, or {@code null} for other methods
	 */
	public @Nullable String getPromptName() {
		return this.operation.promptName();
	}

	/**
	 * Return the target of the span name {@code {mcp.method.name} {target}}: the tool or
	 * the prompt, else the server.
	 * @return the target
	 */
	public String getTarget() {
		return this.operation.target();
	}

	/**
	 * Return the request's id ({@code jsonrpc.request.id}).
	 * @return the id, as text
	 */
	public String getRequestId() {
		return this.requestId;
	}

	/**
	 * Return why the request failed ({@code error.type}): the JSON-RPC error code,
	 * {@code tool_error}, {@code timeout}, {@code cancelled} or the class of the
	 * exception that ended it (see docs/observability.md).
	 * @return the error type, or {@code null} while it has not failed
	 */
	public @Nullable String getErrorType() {
		return this.errorType;
	}

	void setErrorType(String errorType) {
		this.errorType = errorType;
	}

	OperationNames.Operation operation() {
		return this.operation;
	}

	void started(long monotonicNanos) {
		this.startedNanos = monotonicNanos;
	}

	long startedNanos() {
		return this.startedNanos;
	}

	/**
	 * Return the fields a tracer propagates for this request ({@code traceparent} and the
	 * like), in the order it gave them.
	 * @return the fields, empty without a tracer
	 */
	Map<String, String> propagated() {
		Map<String, String> fields = this.propagated;
		return (fields != null) ? fields : Map.of();
	}

	private void propagate(String key, String value) {
		if (this.propagated == null) {
			this.propagated = new LinkedHashMap<>(4);
		}
		this.propagated.put(key, value);
	}

}

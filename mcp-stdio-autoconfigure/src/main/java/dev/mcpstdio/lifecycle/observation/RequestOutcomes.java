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

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

import dev.mcpstdio.core.secrets.SecretSanitizer;
import dev.mcpstdio.core.secrets.SecretValues;
import dev.mcpstdio.core.server.io.JsonRpcLine;
import org.jspecify.annotations.Nullable;

/**
 * How a request went, as its observation records it: answered, answered with an error or
 * a tool's error, or failed, each failure with its error type.
 *
 * @author mcp-stdio authors
 */
final class RequestOutcomes {

	/** The longest part of a server's error message a span's error gets. */
	static final int MAX_MESSAGE_LENGTH = 1024;

	private final OperationNames names;

	/** The server's secret values, masked in what a span or a log gets of its answers. */
	private final SecretValues secrets;

	RequestOutcomes(OperationNames names, SecretValues secrets) {
		this.names = names;
		this.secrets = secrets;
	}

	/**
	 * Return why a request failed, by how it ended: failed, answered with an error, or
	 * answered with a tool's error.
	 * @param context the request's context
	 * @param response its response, or {@code null} when it failed
	 * @param failure why it failed, or {@code null}
	 * @return the error, or {@code null} when it succeeded
	 */
	@Nullable Throwable error(McpOperationContext context, @Nullable JsonRpcLine response, @Nullable Throwable failure) {
		if (failure != null) {
			return failure;
		}
		if (response != null && response.isError()) {
			String code = (response.errorCode() != null) ? response.errorCode() : OperationNames.OTHER;
			// the server's text, bounded: it becomes the span's error and may be logged
			String message = (response.errorMessage() != null)
					? SecretSanitizer.quote(response.errorMessage(), MAX_MESSAGE_LENGTH, this.secrets)
					: "JSON-RPC error " + code;
			return new Failure(code, message);
		}
		if (response != null && response.isToolError() && OperationNames.TOOLS_CALL.equals(context.getMethod())) {
			return new Failure("tool_error", "Tool '" + context.getTarget() + "' answered with isError: true");
		}
		return null;
	}

	/**
	 * Return the error type of a failure, bounded: a {@link Failure}'s own, else the
	 * cause's class.
	 * @param failure the failure
	 * @return the error type
	 */
	String errorType(Throwable failure) {
		Throwable cause = failure;
		while ((cause instanceof CompletionException || cause instanceof ExecutionException)
				&& cause.getCause() != null) {
			cause = cause.getCause();
		}
		String type;
		if (cause instanceof Failure known) {
			type = known.errorType();
		}
		else if (cause instanceof CancellationException) {
			type = "cancelled";
		}
		else if (cause instanceof TimeoutException) {
			type = "timeout";
		}
		else {
			type = cause.getClass().getName();
		}
		return this.names.errorType(type);
	}

	/**
	 * Why a request failed when no exception says it, as the span's error: a JSON-RPC
	 * error, a tool's error.
	 */
	static final class Failure extends RuntimeException {

		private final String errorType;

		Failure(String errorType, String message) {
			// no stack trace: where the failure is noticed says nothing about it
			super(message, null, false, false);
			this.errorType = errorType;
		}

		String errorType() {
			return this.errorType;
		}

	}

}

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

/**
 * Why a request failed when no exception says it: a JSON-RPC error, a tool's error, no
 * answer within the client's timeout, a cancellation. Given to the observation as its
 * error, so that a span's status is an error with this message (for a JSON-RPC error, its
 * message, sanitized). Carries no stack trace: it is made where the failure is noticed,
 * which says nothing about it.
 *
 * @author mcp-stdio authors
 */
final class McpOperationFailure extends RuntimeException {

	private final String errorType;

	McpOperationFailure(String errorType, String message) {
		super(message, null, false, false);
		this.errorType = errorType;
	}

	String errorType() {
		return this.errorType;
	}

}

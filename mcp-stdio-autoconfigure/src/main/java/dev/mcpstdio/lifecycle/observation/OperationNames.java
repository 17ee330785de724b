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
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import dev.mcpstdio.core.secrets.SecretSanitizer;
import dev.mcpstdio.core.secrets.SecretValues;
import org.jspecify.annotations.Nullable;

/**
 * The names one server's telemetry uses, interned, sanitized and bounded.
 *
 * @author mcp-stdio authors
 */
final class OperationNames {

	// Methods, tool and prompt names and error types come from the requests and
	// responses, so a client that calls made-up tools, or a server that invents error
	// codes, must not grow the number of series without end, nor a label's length: past
	// each bound (count, or MAX_LENGTH characters) a name is folded into OTHER (the
	// OpenTelemetry conventions' fallback value); names seen before keep theirs. A name
	// holding one of the server's secret values has it masked, and its control characters
	// escaped, before it becomes a label or a span's name.

	/** What a name past its bound is folded into. */
	static final String OTHER = "_OTHER";

	/** Distinct methods per server. */
	static final int MAX_METHODS = 32;

	/** Distinct tools, and distinct prompts, per server. */
	static final int MAX_TARGETS = 100;

	/** Distinct error types per server. */
	static final int MAX_ERROR_TYPES = 32;

	/** The longest name taken as it is. */
	static final int MAX_LENGTH = 128;

	static final String TOOLS_CALL = "tools/call";

	private static final String PROMPTS_GET = "prompts/get";

	private final String server;

	private final Map<String, Method> methods = new ConcurrentHashMap<>();

	private final Method otherMethod;

	private final Map<String, String> errorTypes = new ConcurrentHashMap<>();

	private final SecretValues secrets;

	OperationNames(String server, SecretValues secrets) {
		this.server = server;
		this.secrets = secrets;
		this.otherMethod = new Method(OTHER);
	}

	/**
	 * Return a name fit for a label: sanitized, or {@value #OTHER} when it is too long.
	 */
	static String label(String name, SecretValues secrets) {
		if (name.length() > MAX_LENGTH) {
			return OTHER;
		}
		String sanitized = SecretSanitizer.text(name, secrets);
		return (sanitized.length() > MAX_LENGTH) ? OTHER : sanitized;
	}

	/**
	 * Return the operation of a request.
	 * @param method its method, or {@code null} when it has none
	 * @param name the {@code name} of its params, or {@code null}
	 * @return the interned operation
	 */
	Operation operation(@Nullable String method, @Nullable String name) {
		Method entry = (method != null) ? intern(this.methods, method, MAX_METHODS, Method::new, this.otherMethod)
				: this.otherMethod;
		return entry.operation(name);
	}

	/**
	 * Return the interned error type.
	 * @param errorType an error type
	 * @return the same text, or {@value #OTHER} past the bound
	 */
	String errorType(String errorType) {
		return intern(this.errorTypes, errorType, MAX_ERROR_TYPES, (key) -> label(key, this.secrets), OTHER);
	}

	/**
	 * Return what a name is interned as: what it was before, else what {@code create}
	 * makes of it while the map has room and the name fits, else {@code other}.
	 */
	private static <V> V intern(Map<String, V> interned, String name, int max, Function<String, V> create, V other) {
		V value = interned.get(name);
		if (value == null) {
			value = (interned.size() < max && name.length() <= MAX_LENGTH) ? interned.computeIfAbsent(name, create)
					: other;
		}
		return value;
	}

	/** One method and the operations of its targets. */
	private final class Method {

		private final String name;

		private final Operation untargeted;

		private final @Nullable Map<String, Operation> targets;

		private final @Nullable Operation otherTarget;

		Method(String method) {
			this.name = OTHER.equals(method) ? OTHER : label(method, OperationNames.this.secrets);
			this.untargeted = new Operation(OperationNames.this.server, this.name, null, null);
			boolean targeted = TOOLS_CALL.equals(this.name) || PROMPTS_GET.equals(this.name);
			this.targets = targeted ? new ConcurrentHashMap<>() : null;
			this.otherTarget = targeted ? create(OTHER) : null;
		}

		Operation operation(@Nullable String target) {
			Map<String, Operation> byName = this.targets;
			if (byName == null || target == null) {
				return this.untargeted;
			}
			return intern(byName, target, MAX_TARGETS, (key) -> create(label(key, OperationNames.this.secrets)),
					this.otherTarget);
		}

		private Operation create(String target) {
			boolean tool = TOOLS_CALL.equals(this.name);
			return new Operation(OperationNames.this.server, this.name, tool ? target : null, tool ? null : target);
		}

	}

	/**
	 * One kind of request to one server as telemetry names it: method and tool or prompt.
	 *
	 * @param server the server's name
	 * @param method the method, or {@value #OTHER}
	 * @param toolName the tool of a {@code tools/call}, or {@code null}
	 * @param promptName the prompt of a {@code prompts/get}, or {@code null}
	 */
	record Operation(String server, String method, @Nullable String toolName, @Nullable String promptName) {

		/**
		 * Return the tool or prompt the request is about, else the server: the target of
		 * the span name {@code {mcp.method.name} {target}}.
		 * @return the target
		 */
		String target() {
			return (this.toolName != null) ? this.toolName : (this.promptName != null) ? this.promptName : this.server;
		}

	}

}

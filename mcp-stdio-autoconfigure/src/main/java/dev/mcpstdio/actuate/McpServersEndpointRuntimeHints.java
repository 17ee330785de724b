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
package dev.mcpstdio.actuate;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.util.ClassUtils;

/**
 * Runtime hints for the JSON of the {@code mcpservers} endpoint: its web extension
 * answers {@code WebEndpointResponse<Object>}, whose body types the actuator cannot
 * infer.
 *
 * @author mcp-stdio authors
 */
class McpServersEndpointRuntimeHints implements RuntimeHintsRegistrar {

	private static final String ACTUATOR = "org.springframework.boot.actuate.endpoint.OperationResponseBody";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		if (!ClassUtils.isPresent(ACTUATOR, classLoader)) {
			return;
		}
		new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(),
				McpServersEndpoint.McpServersDescriptor.class, McpServersEndpoint.McpServerDescriptor.class,
				McpServersEndpoint.ActionFailure.class);
	}

}

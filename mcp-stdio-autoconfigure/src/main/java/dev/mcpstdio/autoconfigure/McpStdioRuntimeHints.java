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
package dev.mcpstdio.autoconfigure;

import dev.mcpstdio.autoconfigure.config.Connection;
import dev.mcpstdio.autoconfigure.config.McpStdioProperties;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;

/**
 * Runtime hints for what mcp-stdio reads by reflection or as a resource: the binding of
 * {@code mcp.stdio} and of Spring AI's stdio connections (bound when the application
 * starts, then registered as an instance), the scripts of the orphan guard and the
 * reapers, and the native C library reached through JNA.
 *
 * @author mcp-stdio authors
 */
class McpStdioRuntimeHints implements RuntimeHintsRegistrar {

	/** The scripts the orphan guard and the reapers run, read from the class path. */
	static final String SCRIPTS = "dev/mcpstdio/core/containment/*.sh";

	/** The interface JNA implements with a JDK proxy over the C library. */
	static final String LIBC = "dev.mcpstdio.core.tree.Pidfds$LibC";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern(SCRIPTS);
		BindableRuntimeHintsRegistrar.forTypes(McpStdioProperties.class, Connection.class)
			.registerHints(hints, classLoader);
		hints.proxies().registerJdkProxy(TypeReference.of(LIBC));
	}

}

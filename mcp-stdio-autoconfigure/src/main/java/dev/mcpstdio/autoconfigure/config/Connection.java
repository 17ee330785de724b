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

package dev.mcpstdio.autoconfigure.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.mcpstdio.autoconfigure.config.McpStdioProperties.Server;
import org.jspecify.annotations.Nullable;

/**
 * One of Spring AI's stdio connections, as bound from its properties.
 *
 * @param command the command
 * @param args its arguments
 * @param env the variables added to its environment
 * @author mcp-stdio authors
 */
public record Connection(@Nullable String command, @Nullable List<String> args, @Nullable Map<String, String> env) {

	Configured toConfigured(String name, Server server) {
		server.setCommand(this.command);
		server.setArgs((this.args != null) ? new ArrayList<>(this.args) : new ArrayList<>());
		server.setEnv((this.env != null) ? new LinkedHashMap<>(this.env) : new LinkedHashMap<>());
		return new Configured(name, server, SpringAiStdio.CONNECTIONS + "." + name + ".", null, Set.of(), Set.of());
	}

}

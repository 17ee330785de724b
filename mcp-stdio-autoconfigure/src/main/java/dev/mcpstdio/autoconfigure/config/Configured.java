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

import java.util.Set;

import dev.mcpstdio.autoconfigure.config.McpStdioProperties.Server;
import org.jspecify.annotations.Nullable;

/**
 * One configured server as its sources gave it, before it is checked.
 *
 * @param name its name
 * @param server its settings, those of {@code defaults} under its own
 * @param commandPrefix the prefix of the property its command line came from
 * @param file where in a servers file its command line came from, or {@code null}
 * @param keys the keys set for it, not under {@code defaults}
 * @param secrets the values of placeholders of its servers file that are secrets
 * @author mcp-stdio authors
 */
record Configured(String name, Server server, String commandPrefix, @Nullable String file, Set<String> keys,
		Set<String> secrets) {

	private static final String DEFAULTS = McpStdioProperties.PREFIX + ".defaults.";

	/** Where its command line was configured, for messages. */
	String origin() {
		return (this.file != null) ? this.file : this.commandPrefix.substring(0, this.commandPrefix.length() - 1);
	}

	String inFile() {
		return (this.file != null) ? " (in " + this.file + ")" : "";
	}

	/**
	 * Return the full name of the property a value came from: the server's own, else the
	 * one under {@code defaults} that it inherited, so that an error points where to fix
	 * it.
	 * @param key the key, such as {@code shutdown.terminate-timeout}
	 * @param defaultsKeys the keys set under {@code defaults}
	 * @return the property's full name
	 */
	String source(String key, Set<String> defaultsKeys) {
		boolean inherited = !this.keys.contains(key) && defaultsKeys.contains(key);
		return (inherited ? DEFAULTS : ServersBinder.SERVERS + this.name + ".") + key;
	}

}

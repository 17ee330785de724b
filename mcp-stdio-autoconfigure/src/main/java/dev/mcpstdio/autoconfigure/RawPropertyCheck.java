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

import java.util.HashSet;
import java.util.Set;

import dev.mcpstdio.autoconfigure.McpStdioProperties.Server;
import dev.mcpstdio.autoconfigure.McpStdioProperties.ServerSettings;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;
import org.springframework.util.PlaceholderResolutionException;

/**
 * Checks the server properties as written, before binding, for what binding would hide: a
 * key that binds to nothing (a typo, or a server name with a dot that is not in brackets)
 * and a placeholder in {@code command}, {@code args} or {@code env} that cannot be
 * resolved (binding keeps it as text, and the server would get {@code ${MY_TOKEN}}).
 *
 * @author mcp-stdio authors
 */
final class RawPropertyCheck {

	private static final ConfigurationPropertyName SERVERS = ConfigurationPropertyName
		.of(McpStdioProperties.PREFIX + ".servers");

	private static final ConfigurationPropertyName DEFAULTS = ConfigurationPropertyName
		.of(McpStdioProperties.PREFIX + ".defaults");

	private static final ConfigurationPropertyName CONNECTIONS = ConfigurationPropertyName
		.of(SpringAiStdio.CONNECTIONS);

	private static final Set<String> RESOLVED_KEYS = Set.of("command", "args", "env");

	private final Environment environment;

	private final boolean adopting;

	private final ProblemReport problems;

	RawPropertyCheck(Environment environment, boolean adopting, ProblemReport problems) {
		this.environment = environment;
		this.adopting = adopting;
		this.problems = problems;
	}

	/**
	 * Check every property under {@code mcp.stdio.servers} and {@code mcp.stdio.defaults}
	 * (and Spring AI's stdio connections when they are adopted), each once, as the source
	 * that wins for it has it.
	 */
	void check() {
		Set<ConfigurationPropertyName> seen = new HashSet<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
			if (!(source instanceof IterableConfigurationPropertySource iterable)) {
				continue;
			}
			iterable.filter(this::isChecked).forEach((name) -> {
				if (seen.add(name)) {
					check(name, source.getConfigurationProperty(name));
				}
			});
		}
	}

	private boolean isChecked(ConfigurationPropertyName name) {
		return SERVERS.isAncestorOf(name) || DEFAULTS.isAncestorOf(name)
				|| (this.adopting && CONNECTIONS.isAncestorOf(name));
	}

	private void check(ConfigurationPropertyName name, ConfigurationProperty property) {
		if (SERVERS.isAncestorOf(name)) {
			String server = name.getElement(SERVERS.getNumberOfElements(), Form.ORIGINAL);
			int keyIndex = SERVERS.getNumberOfElements() + 1;
			if (!checkKeys(Server.class, name, server, keyIndex)) {
				return;
			}
			checkPlaceholders(name, property, server, keyIndex);
		}
		else if (DEFAULTS.isAncestorOf(name)) {
			checkKeys(ServerSettings.class, name, "(defaults)", DEFAULTS.getNumberOfElements());
		}
		else {
			int keyIndex = CONNECTIONS.getNumberOfElements() + 1;
			checkPlaceholders(name, property, name.getElement(CONNECTIONS.getNumberOfElements(), Form.ORIGINAL),
					keyIndex);
		}
	}

	private boolean checkKeys(Class<?> type, ConfigurationPropertyName name, String server, int keyIndex) {
		if (name.getNumberOfElements() <= keyIndex) {
			return true;
		}
		ServerKeys.Unknown unknown = ServerKeys.unknownElement(type, name, keyIndex);
		if (unknown == null) {
			return true;
		}
		String key = name.getElement(unknown.index(), Form.ORIGINAL);
		if (type == Server.class && unknown.index() == keyIndex && name.getNumberOfElements() > keyIndex + 1
				&& ServerKeys.unknownElement(Server.class, name, keyIndex + 1) == null) {
			// mcp.stdio.servers.my.server.command: the rest is a server's key
			String dotted = server + "." + key;
			this.problems.add(dotted, ServerKeys.original(name),
					"'" + key + "' is not a key of a server, so this property configures nothing: a server name with "
							+ "a dot must be written in brackets",
					"write " + SERVERS + "[" + dotted + "]." + ServerKeys.original(name.subName(keyIndex + 1))
							+ " (in YAML: \"[" + dotted + "]\":), or rename the server");
		}
		else {
			this.problems.add(server, ServerKeys.original(name),
					"'" + key + "' is not a key here, so this property configures nothing",
					"use one of the keys: " + ServerKeys.describe(unknown.type()));
		}
		return false;
	}

	private void checkPlaceholders(ConfigurationPropertyName name, ConfigurationProperty property, String server,
			int keyIndex) {
		if (name.getNumberOfElements() <= keyIndex
				|| !RESOLVED_KEYS.contains(name.getElement(keyIndex, Form.UNIFORM))) {
			return;
		}
		if (!(property.getValue() instanceof String value) || !value.contains("${")) {
			return;
		}
		try {
			this.environment.resolveRequiredPlaceholders(value);
		}
		catch (PlaceholderResolutionException ex) {
			String placeholder = ex.getPlaceholder();
			this.problems.add(server, ServerKeys.original(name),
					"the placeholder ${" + placeholder + "} cannot be resolved: no property or environment variable "
							+ placeholder + " is set",
					"set " + placeholder + ", give a default with ${" + placeholder + ":default}, or write \\${...} "
							+ "for a literal ${...}");
		}
		catch (IllegalArgumentException ex) {
			this.problems.add(server, ServerKeys.original(name), "a placeholder in it cannot be resolved",
					"set the variables it names, or write \\${...} for a literal ${...}");
		}
	}

}

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

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.mcpstdio.autoconfigure.McpStdioConfigurationException.Problem;
import dev.mcpstdio.autoconfigure.McpStdioProperties.Server;
import dev.mcpstdio.autoconfigure.McpStdioProperties.ServerSettings;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.origin.PropertySourceOrigin;
import org.springframework.core.env.Environment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.util.PlaceholderResolutionException;

/**
 * Checks the server properties as written, before binding, for what binding would hide: a
 * name that relaxed binding would change (a server named {@code my server} would become
 * {@code myserver}), an entry of {@code env} set by an environment variable (its name
 * would be lower-cased and split at each {@code _}), a key that binds to nothing (a typo,
 * or a server name with a dot that is not in brackets), a value of the wrong shape (a
 * list for {@code env}, a map for {@code args}) and a placeholder in {@code command},
 * {@code args} or {@code env} that cannot be resolved (binding keeps it as text, and the
 * server would get {@code ${MY_TOKEN}}).
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
			int serverIndex = SERVERS.getNumberOfElements();
			String server = name.getElement(serverIndex, Form.ORIGINAL);
			if (checkWritten(name, property, serverIndex, null)
					&& checkKeys(Server.class, name, server, serverIndex + 1)
					&& checkShape(Server.class, name, server, serverIndex + 1)) {
				checkPlaceholders(name, property, server, serverIndex + 1);
			}
		}
		else if (DEFAULTS.isAncestorOf(name)) {
			int keyIndex = DEFAULTS.getNumberOfElements();
			if (checkWritten(name, property, keyIndex, "(defaults)")
					&& checkKeys(ServerSettings.class, name, "(defaults)", keyIndex)) {
				checkShape(ServerSettings.class, name, "(defaults)", keyIndex);
			}
		}
		else {
			int serverIndex = CONNECTIONS.getNumberOfElements();
			String server = name.getElement(serverIndex, Form.ORIGINAL);
			// Spring AI's keys are its own; command, args and env have the shapes of ours
			if (checkWritten(name, property, serverIndex, null)
					&& checkShape(Server.class, name, server, serverIndex + 1)) {
				checkPlaceholders(name, property, server, serverIndex + 1);
			}
		}
	}

	/**
	 * Check that binding reads the name of the property as it was written, from the
	 * server's name on: relaxed binding drops the characters a property name cannot hold,
	 * and lower-cases and splits the name of an environment variable.
	 * @param name the name as bound
	 * @param property the property
	 * @param from the index of the server's name, or of the first key under defaults
	 * @param server {@code null} when the element at {@code from} is the server's name,
	 * else the server for the report
	 * @return whether the name is read as written
	 */
	private boolean checkWritten(ConfigurationPropertyName name, ConfigurationProperty property, int from,
			@Nullable String server) {
		if (!(property.getOrigin() instanceof PropertySourceOrigin origin)) {
			return true;
		}
		String written = origin.getPropertyName();
		// MCP_STDIO_SERVERS_A_COMMAND; a variable named with dots maps as properties do
		boolean variable = origin.getPropertySource() instanceof SystemEnvironmentPropertySource
				&& written.indexOf('.') < 0;
		List<String> elements = elements(written, variable ? '_' : '.');
		int count = name.getNumberOfElements();
		// from the end: an environment variable may have a prefix
		for (int i = from; i < count; i++) {
			int at = elements.size() - (count - i);
			String as = (at >= 0) ? elements.get(at) : "";
			String bound = name.getElement(i, Form.ORIGINAL);
			if (variable ? as.equalsIgnoreCase(bound) : as.equals(bound)) {
				continue;
			}
			if (server == null && i == from) {
				this.problems.add(as, written,
						"the server's name '" + as + "' holds characters a property name cannot, so binding would "
								+ "silently make it '" + bound
								+ "'; a name is 1 to 64 letters, digits, '.', '_' or '-'",
						"rename the server (a name with a dot goes in brackets: " + SERVERS + "[my.server].command)");
			}
			else {
				this.problems.add((server != null) ? server : name.getElement(from, Form.ORIGINAL), written,
						"'" + as + "' holds characters a property name cannot, so binding would silently read it as '"
								+ bound + "'",
						"remove them, or write it in brackets ([" + as + "]) to keep it as written");
			}
			return false;
		}
		if (variable && server == null && count > from + 2 && "env".equals(name.getElement(from + 1, Form.UNIFORM))) {
			this.problems.add(name.getElement(from, Form.ORIGINAL), written,
					"an environment variable cannot set an entry of env: binding would lower-case the entry's name and "
							+ "split it at each '_' (" + ServerKeys.original(name) + ")",
					"set the entry in application.yml or application.properties, with a placeholder for its value "
							+ "(env.MY_TOKEN: ${MY_TOKEN}), or in SPRING_APPLICATION_JSON");
			return false;
		}
		return true;
	}

	/**
	 * Split a property name as written into its elements, as Boot does: at each separator
	 * outside brackets, a bracketed element whole, empty elements left out.
	 */
	private static List<String> elements(String name, char separator) {
		List<String> elements = new ArrayList<>();
		StringBuilder element = new StringBuilder();
		int i = 0;
		while (i < name.length()) {
			char c = name.charAt(i);
			if (c == '[') {
				int depth = 0;
				int end = i;
				for (; end < name.length(); end++) {
					depth += (name.charAt(end) == '[') ? 1 : (name.charAt(end) == ']') ? -1 : 0;
					if (depth == 0) {
						break;
					}
				}
				add(elements, element);
				elements.add(name.substring(i + 1, Math.min(end, name.length())));
				i = end + 1;
			}
			else if (c == separator) {
				add(elements, element);
				i++;
			}
			else {
				element.append(c);
				i++;
			}
		}
		add(elements, element);
		return elements;
	}

	private static void add(List<String> elements, StringBuilder element) {
		if (!element.isEmpty()) {
			elements.add(element.toString());
			element.setLength(0);
		}
	}

	private boolean checkShape(Class<?> type, ConfigurationPropertyName name, String server, int keyIndex) {
		Problem problem = ServerKeys.shapeProblem(type, name, keyIndex, server);
		if (problem != null) {
			this.problems.add(problem);
		}
		return problem == null;
	}

	private boolean checkKeys(Class<?> type, ConfigurationPropertyName name, String server, int keyIndex) {
		if (name.getNumberOfElements() <= keyIndex) {
			return true;
		}
		ServerKeys.Key unknown = ServerKeys.unknownElement(type, name, keyIndex);
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

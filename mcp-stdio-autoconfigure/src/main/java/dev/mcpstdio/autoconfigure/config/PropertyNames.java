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
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.mcpstdio.autoconfigure.config.McpStdioProperties.Server;
import dev.mcpstdio.autoconfigure.config.McpStdioProperties.ServerSettings;
import dev.mcpstdio.core.secrets.SecretSanitizer;
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
 * Checks the server properties as written, before relaxed binding reads them.
 *
 * @author mcp-stdio authors
 */
final class PropertyNames {

	private static final ConfigurationPropertyName SERVERS = ServersBinder.SERVERS_NAME;

	private static final ConfigurationPropertyName DEFAULTS = ServersBinder.DEFAULTS_NAME;

	private static final ConfigurationPropertyName CONNECTIONS = ConfigurationPropertyName
		.of(SpringAiStdio.CONNECTIONS);

	/** A placeholder without nesting: {@code ${name}} or {@code ${name:default}}. */
	private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([^{}:]+)(?::[^{}]*)?}");

	private final Environment environment;

	private final Problems problems;

	private final PropertyKeys keys;

	private final Map<String, Set<String>> secrets = new HashMap<>();

	private PropertyNames(Environment environment, Problems problems) {
		this.environment = environment;
		this.problems = problems;
		this.keys = new PropertyKeys(problems);
	}

	/**
	 * Check every property under {@code mcp.stdio.servers} and {@code mcp.stdio.defaults}
	 * (and Spring AI's stdio connections when they are adopted), each once, as the source
	 * that wins for it has it, for what binding would hide: a name it would change, an
	 * {@code env} entry set by an environment variable, a key that binds to nothing, a
	 * value of the wrong shape, a placeholder in {@code command}, {@code args} or
	 * {@code env} that cannot be resolved (binding would keep it as text).
	 * @param environment the environment
	 * @param adopting whether Spring AI's stdio connections are adopted
	 * @param problems where errors go
	 * @return the values of placeholders in {@code env} entries that are secrets, by
	 * server: every placeholder of a secret-looking entry ({@code "Bearer ${TOKEN}"}),
	 * and every placeholder of a variable whose name looks secret
	 */
	static Map<String, Set<String>> check(Environment environment, boolean adopting, Problems problems) {
		PropertyNames names = new PropertyNames(environment, problems);
		Set<ConfigurationPropertyName> seen = new HashSet<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			if (source instanceof IterableConfigurationPropertySource iterable) {
				iterable
					.filter((name) -> SERVERS.isAncestorOf(name) || DEFAULTS.isAncestorOf(name)
							|| (adopting && CONNECTIONS.isAncestorOf(name)))
					.forEach((name) -> {
						ConfigurationProperty property = source.getConfigurationProperty(name);
						// the source that wins for a name is the first one that has it
						if (property != null && seen.add(name)) {
							names.check(name, property);
						}
					});
			}
		}
		return names.secrets;
	}

	private void check(ConfigurationPropertyName name, ConfigurationProperty property) {
		if (DEFAULTS.isAncestorOf(name)) {
			int keyIndex = DEFAULTS.getNumberOfElements();
			if (written(name, property, keyIndex, "(defaults)")) {
				this.keys.fits(ServerSettings.class, name, "(defaults)", keyIndex, true);
			}
			return;
		}
		boolean connection = !SERVERS.isAncestorOf(name);
		int serverIndex = (connection ? CONNECTIONS : SERVERS).getNumberOfElements();
		String server = name.getElement(serverIndex, Form.ORIGINAL);
		// Spring AI's keys are its own; command, args and env have the shapes of ours
		if (written(name, property, serverIndex, null)
				&& this.keys.fits(Server.class, name, server, serverIndex + 1, !connection)) {
			placeholders(name, property, server, serverIndex + 1);
		}
	}

	/**
	 * Check that binding reads the name of the property as it was written, from the
	 * server's name on: relaxed binding drops the characters a property name cannot hold,
	 * and lower-cases and splits the name of an environment variable.
	 * @param from the index of the server's name, or of the first key under defaults
	 * @param server {@code null} when the element at {@code from} is the server's name,
	 * else the server for the report
	 */
	private boolean written(ConfigurationPropertyName name, ConfigurationProperty property, int from,
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
			if (!(variable ? as.equalsIgnoreCase(name.getElement(i, Form.ORIGINAL))
					: as.equals(name.getElement(i, Form.ORIGINAL)))) {
				changed(name, from, i, as, written, server);
				return false;
			}
		}
		if (variable && server == null && count > from + 2 && "env".equals(name.getElement(from + 1, Form.UNIFORM))) {
			problem(name.getElement(from, Form.ORIGINAL), written,
					"an environment variable cannot set an entry of env: binding would lower-case the entry's name and "
							+ "split it at each '_' (" + original(name) + ")",
					"set the entry in application.yml or application.properties, with a placeholder for its value "
							+ "(env.MY_TOKEN: ${MY_TOKEN}), or in SPRING_APPLICATION_JSON");
			return false;
		}
		return true;
	}

	/**
	 * Report the element at {@code index} that binding reads otherwise than it was
	 * written ({@code as}).
	 */
	private void changed(ConfigurationPropertyName name, int from, int index, String as, String written,
			@Nullable String server) {
		String bound = name.getElement(index, Form.ORIGINAL);
		if (server == null && index == from) {
			problem(as, written,
					"the server's name '" + as + "' holds characters a property name cannot, so binding would silently "
							+ "make it '" + bound + "'; a name is 1 to 64 letters, digits, '.', '_' or '-'",
					"rename the server (a name with a dot goes in brackets: " + SERVERS + "[my.server].command)");
		}
		else {
			problem((server != null) ? server : name.getElement(from, Form.ORIGINAL), written, "'" + as
					+ "' holds characters a property name cannot, so binding would silently read it as '" + bound + "'",
					"remove them, or write it in brackets ([" + as + "]) to keep it as written");
		}
	}

	/**
	 * Split a property name as written into its elements, as Boot does: at each separator
	 * outside brackets, a bracketed element whole, empty elements left out.
	 */
	private static List<String> elements(String name, char separator) {
		List<String> elements = new ArrayList<>();
		StringBuilder element = new StringBuilder();
		int depth = 0;
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			if ((c == '[' && depth++ == 0) || (c == separator && depth == 0)) {
				if (!element.isEmpty()) {
					elements.add(element.toString());
				}
				element.setLength(0);
			}
			else if (c == ']' && depth > 0 && --depth == 0) {
				elements.add(element.toString());
				element.setLength(0);
			}
			else {
				element.append(c);
			}
		}
		if (depth > 0 || !element.isEmpty()) {
			elements.add(element.toString());
		}
		return elements;
	}

	/**
	 * Check that the placeholders of a value of {@code command}, {@code args} or
	 * {@code env} can be resolved. Binding resolves them before mcp-stdio sees a value,
	 * so those of an {@code env} entry that are secrets are read from the property as
	 * written.
	 */
	private void placeholders(ConfigurationPropertyName name, ConfigurationProperty property, String server,
			int keyIndex) {
		if (name.getNumberOfElements() <= keyIndex
				|| !Set.of("command", "args", "env").contains(name.getElement(keyIndex, Form.UNIFORM))
				|| !(property.getValue() instanceof String value) || !value.contains("${")) {
			return;
		}
		try {
			this.environment.resolveRequiredPlaceholders(value);
		}
		catch (PlaceholderResolutionException ex) {
			String placeholder = ex.getPlaceholder();
			problem(server, original(name),
					"the placeholder ${" + placeholder + "} cannot be resolved: no property or environment variable "
							+ placeholder + " is set",
					"set " + placeholder + ", give a default with ${" + placeholder + ":default}, or write \\${...} "
							+ "for a literal ${...}");
		}
		catch (IllegalArgumentException ex) {
			problem(server, original(name), "a placeholder in it cannot be resolved",
					"set the variables it names, or write \\${...} for a literal ${...}");
		}
		// <prefix>.<server>.env.<VARIABLE>
		if (name.getNumberOfElements() != keyIndex + 2 || !"env".equals(name.getElement(keyIndex, Form.UNIFORM))) {
			return;
		}
		boolean secretEntry = SecretSanitizer.isSecretName(name.getElement(keyIndex + 1, Form.ORIGINAL));
		Matcher placeholder = PLACEHOLDER.matcher(value);
		while (placeholder.find()) {
			if (secretEntry || SecretSanitizer.isSecretName(placeholder.group(1))) {
				try {
					String resolved = this.environment.resolvePlaceholders(placeholder.group());
					if (!resolved.contains("${")) {
						this.secrets.computeIfAbsent(server, (key) -> new LinkedHashSet<>()).add(resolved);
					}
				}
				catch (IllegalArgumentException ex) {
					// reported as a placeholder that cannot be resolved
				}
			}
		}
	}

	private void problem(String server, String property, String problem, String action) {
		this.problems.add(server, property, problem, action);
	}

	/**
	 * Return a property name as it was written: the case of a map key kept
	 * ({@code env.MY_TOKEN}), unlike {@link ConfigurationPropertyName#toString()}.
	 * @param name the name
	 * @return the name as written
	 */
	static String original(ConfigurationPropertyName name) {
		StringBuilder result = new StringBuilder();
		for (int i = 0; i < name.getNumberOfElements(); i++) {
			String element = name.getElement(i, Form.ORIGINAL);
			if (name.chop(i + 1).isLastElementIndexed()) {
				result.append('[').append(element).append(']');
			}
			else {
				result.append((i > 0) ? "." : "").append(element);
			}
		}
		return result.toString();
	}

}

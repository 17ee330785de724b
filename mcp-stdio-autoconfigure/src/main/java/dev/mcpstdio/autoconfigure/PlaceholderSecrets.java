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

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.mcpstdio.core.io.SecretValues;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;

/**
 * Finds the values that placeholders put into the {@code env} of servers configured by
 * properties ({@code mcp.stdio.servers.*.env}, and Spring AI's stdio connections when
 * they are adopted) and that are secrets: every placeholder of a secret-looking entry
 * ({@code API_KEY: "Bearer ${TOKEN}"} gives the value of {@code TOKEN}, which a server
 * may print alone), and every placeholder of a variable whose name looks secret, whatever
 * the entry ({@code URL: "https://h/?key=${API_KEY}"}). Binding resolves placeholders
 * before mcp-stdio sees a value, so they are read from the properties as written.
 *
 * @author mcp-stdio authors
 */
final class PlaceholderSecrets {

	private static final ConfigurationPropertyName SERVERS = ConfigurationPropertyName
		.of(McpStdioProperties.PREFIX + ".servers");

	private static final ConfigurationPropertyName CONNECTIONS = ConfigurationPropertyName
		.of(SpringAiStdio.CONNECTIONS);

	/** A placeholder without nesting: {@code ${name}} or {@code ${name:default}}. */
	private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([^{}:]+)(?::[^{}]*)?}");

	private PlaceholderSecrets() {
	}

	/**
	 * Find the secret values of placeholders, by server.
	 * @param environment the environment, as written and to resolve placeholders
	 * @param adopting whether Spring AI's stdio connections are adopted
	 * @return the values by server name
	 */
	static Map<String, Set<String>> find(Environment environment, boolean adopting) {
		Map<String, Set<String>> found = new HashMap<>();
		Set<ConfigurationPropertyName> seen = new HashSet<>();
		for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
			if (!(source instanceof IterableConfigurationPropertySource iterable)) {
				continue;
			}
			iterable.filter((name) -> SERVERS.isAncestorOf(name) || (adopting && CONNECTIONS.isAncestorOf(name)))
				.forEach((name) -> {
					// the source that wins for a name is the first one that has it
					if (seen.add(name)) {
						find(environment, name, source.getConfigurationProperty(name), found);
					}
				});
		}
		return found;
	}

	private static void find(Environment environment, ConfigurationPropertyName name, ConfigurationProperty property,
			Map<String, Set<String>> found) {
		int serverIndex = (SERVERS.isAncestorOf(name) ? SERVERS : CONNECTIONS).getNumberOfElements();
		// <prefix>.<server>.env.<VARIABLE>
		if (name.getNumberOfElements() != serverIndex + 3
				|| !"env".equals(name.getElement(serverIndex + 1, Form.UNIFORM)) || property == null
				|| !(property.getValue() instanceof String value) || !value.contains("${")) {
			return;
		}
		boolean secretEntry = SecretValues.isSecretName(name.getElement(serverIndex + 2, Form.ORIGINAL));
		Matcher placeholder = PLACEHOLDER.matcher(value);
		while (placeholder.find()) {
			if (!secretEntry && !SecretValues.isSecretName(placeholder.group(1))) {
				continue;
			}
			String resolved;
			try {
				resolved = environment.resolvePlaceholders(placeholder.group());
			}
			catch (IllegalArgumentException ex) {
				// reported by RawPropertyCheck
				continue;
			}
			if (!resolved.contains("${")) {
				found.computeIfAbsent(name.getElement(serverIndex, Form.ORIGINAL), (server) -> new LinkedHashSet<>())
					.add(resolved);
			}
		}
	}

}

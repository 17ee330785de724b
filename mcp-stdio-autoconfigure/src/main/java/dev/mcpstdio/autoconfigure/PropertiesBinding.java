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

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.util.unit.DataSize;

/**
 * Binds {@code mcp.stdio} the way Boot does (relaxed names, enums such as
 * {@code on-failure}), turning every value that cannot be converted into a problem that
 * names server and property, instead of stopping at the first.
 *
 * @author mcp-stdio authors
 */
final class PropertiesBinding {

	private static final ConfigurationPropertyName SERVERS = ConfigurationPropertyName
		.of(McpStdioProperties.PREFIX + ".servers");

	private static final ConfigurationPropertyName DEFAULTS = ConfigurationPropertyName
		.of(McpStdioProperties.PREFIX + ".defaults");

	private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9 .+-]{1,24}");

	private PropertiesBinding() {
	}

	/**
	 * Bind the properties.
	 * @param binder the binder of the environment
	 * @param problems where a value that cannot be converted is reported
	 * @return the properties, without the values that could not be converted
	 */
	static McpStdioProperties bind(Binder binder, ProblemReport problems) {
		return binder
			.bind(McpStdioProperties.PREFIX, Bindable.ofInstance(new McpStdioProperties()), new AbstractBindHandler() {

				@Override
				public @Nullable Object onFailure(ConfigurationPropertyName name, Bindable<?> target,
						BindContext context, Exception error) {
					report(name, target.getType().resolve(Object.class), context.getConfigurationProperty(), problems);
					// unbound: the built-in default stands in, and binding goes on
					return null;
				}

			})
			.orElseGet(McpStdioProperties::new);
	}

	private static void report(ConfigurationPropertyName name, Class<?> type, @Nullable ConfigurationProperty property,
			ProblemReport problems) {
		// only typed keys fail to convert; still, a value is quoted only when it is a
		// short plain word, never what could be a secret pasted in the wrong place
		Object value = (property != null) ? property.getValue() : null;
		String shown = (value != null && PLAIN.matcher(value.toString()).matches()) ? "'" + value + "'" : "the value";
		if (type.isEnum()) {
			String values = Arrays.stream(type.getEnumConstants())
				.map((constant) -> ((Enum<?>) constant).name().toLowerCase(Locale.ROOT).replace('_', '-'))
				.collect(Collectors.joining(", "));
			problems.add(server(name), ServerKeys.original(name), shown + " is not one of " + values,
					"use one of " + values);
		}
		else {
			problems.add(server(name), ServerKeys.original(name), shown + " is not " + expected(type),
					"write " + expected(type));
		}
	}

	private static String expected(Class<?> type) {
		if (type == Duration.class) {
			return "a duration such as 500ms, 2s or 1m";
		}
		if (type == DataSize.class) {
			return "a size such as 512KB or 16MB";
		}
		if (type == Integer.class || type == int.class) {
			return "a whole number";
		}
		if (type == Boolean.class || type == boolean.class) {
			return "true or false";
		}
		return "a " + type.getSimpleName();
	}

	private static String server(ConfigurationPropertyName name) {
		if (SERVERS.isAncestorOf(name) && name.getNumberOfElements() > SERVERS.getNumberOfElements()) {
			return name.getElement(SERVERS.getNumberOfElements(), Form.ORIGINAL);
		}
		return DEFAULTS.isAncestorOf(name) ? "(defaults)" : "(all)";
	}

}

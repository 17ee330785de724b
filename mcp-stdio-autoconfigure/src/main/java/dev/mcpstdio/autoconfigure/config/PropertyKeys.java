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

import java.beans.PropertyDescriptor;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.mcpstdio.autoconfigure.config.McpStdioProperties.Server;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;

/**
 * The check of a property name against the keys of the settings classes: that each
 * element is a key, and that what follows the key that takes the value fits it.
 *
 * @author mcp-stdio authors
 */
final class PropertyKeys {

	private static final ConfigurationPropertyName SERVERS = ServersBinder.SERVERS_NAME;

	private final Problems problems;

	PropertyKeys(Problems problems) {
		this.problems = problems;
	}

	/**
	 * Report an element that is no key of the settings class where it is.
	 */
	private void unknown(Key unknown, ConfigurationPropertyName name, String server, int keyIndex) {
		String key = name.getElement(unknown.index(), Form.ORIGINAL);
		if (unknown.type() == Server.class && unknown.index() == keyIndex && name.getNumberOfElements() > keyIndex + 1
				&& walk(Server.class, name, keyIndex + 1).known(name)) {
			// mcp.stdio.servers.my.server.command: the rest is a server's key
			String dotted = server + "." + key;
			problem(dotted, PropertyNames.original(name),
					"'" + key + "' is not a key of a server, so this property configures nothing: a server name with "
							+ "a dot must be written in brackets",
					"write " + SERVERS + "[" + dotted + "]." + PropertyNames.original(name.subName(keyIndex + 1))
							+ " (in YAML: \"[" + dotted + "]\":), or rename the server");
		}
		else {
			problem(server, PropertyNames.original(name),
					"'" + key + "' is not a key here, so this property configures nothing",
					"use one of the keys: " + String.join(", ",
							properties(unknown.type()).values()
								.stream()
								.map((property) -> DataObjectPropertyName.toDashedForm(property.getName()))
								.toList()));
		}
	}

	/**
	 * Check that every element from {@code keyIndex} on is a key of {@code type} (nested
	 * keys included; those of a map or list are free; Spring AI's are its own unless
	 * {@code keys}), and that what follows the key that takes the value fits it: binding
	 * would silently ignore or misread a list or map for a key of one value
	 * ({@code enabled[0]}), a map for a list ({@code args.x}), a list for a map
	 * ({@code env[0]}, YAML's {@code env: [1, 2]}) or for a value of a map
	 * ({@code env.A[0]}).
	 */
	boolean fits(Class<?> type, ConfigurationPropertyName name, String server, int keyIndex, boolean keys) {
		Key key = walk(type, name, keyIndex);
		PropertyDescriptor property = key.property();
		if (property == null) {
			if (keys && !key.known(name)) {
				unknown(key, name, server, keyIndex);
				return false;
			}
			return true;
		}
		String dashed = DataObjectPropertyName.toDashedForm(property.getName());
		int first = key.index();
		boolean more = first < name.getNumberOfElements();
		if (List.class.isAssignableFrom(property.getPropertyType())) {
			// args[0] or args.0; what is under an item, binding refuses itself
			if (more && !name.getElement(first, Form.ORIGINAL).chars().allMatch(Character::isDigit)) {
				problem(server, PropertyNames.original(name), "'" + dashed + "' is a list, written here as a map",
						"write a list: " + dashed + ": [a, b] in YAML, " + dashed + "[0]=a in properties");
				return false;
			}
		}
		else if (Map.class.isAssignableFrom(property.getPropertyType())) {
			for (int i = first; i < name.getNumberOfElements(); i++) {
				if (name.isNumericIndex(i)) {
					problem(server, PropertyNames.original(name),
							(i == first) ? "'" + dashed + "' is a map of names to values, written here as a list"
									: "the value of an entry of '" + dashed + "' is one string, written here as a list",
							"write name: value pairs: " + dashed + ": { LOG_LEVEL: debug } in YAML, " + dashed
									+ ".LOG_LEVEL=debug in properties");
					return false;
				}
			}
		}
		else if (more) {
			problem(server, PropertyNames.original(name),
					"'" + dashed + "' takes one value, written here as a list or a map",
					"write one value: " + dashed + ": value");
			return false;
		}
		return true;
	}

	/**
	 * Walk the key elements of a property name: to the first unknown element, or to the
	 * first element after the key that takes the value.
	 */
	private static Key walk(Class<?> type, ConfigurationPropertyName name, int start) {
		Class<?> current = type;
		int index = start;
		while (index < name.getNumberOfElements()) {
			// an environment variable splits a dashed key (INHERIT_ENV): join elements
			PropertyDescriptor match = null;
			StringBuilder joined = new StringBuilder();
			int end = index;
			for (; end < name.getNumberOfElements() && match == null; end++) {
				joined.append(name.getElement(end, Form.UNIFORM));
				match = properties(current).get(joined.toString());
			}
			if (match == null) {
				return new Key(index, current, null);
			}
			if (match.getPropertyType().getEnclosingClass() != McpStdioProperties.class) {
				return new Key(end, current, match);
			}
			current = match.getPropertyType();
			index = end;
		}
		return new Key(index, current, null);
	}

	private static Map<String, PropertyDescriptor> properties(Class<?> type) {
		Map<String, PropertyDescriptor> properties = new LinkedHashMap<>();
		for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
			if (property.getReadMethod() != null && !"class".equals(property.getName())) {
				properties.put(property.getName().toLowerCase(Locale.ROOT), property);
			}
		}
		return properties;
	}

	private void problem(String server, String property, String problem, String action) {
		this.problems.add(server, property, problem, action);
	}

	/**
	 * Where a walk over the key elements of a property name stopped.
	 *
	 * @param index the first unknown element, or the first one after the key that takes
	 * the value
	 * @param type the settings class of the last key
	 * @param property the key that takes the value, {@code null} when an element is
	 * unknown or the name ends at a nested key
	 */
	private record Key(int index, Class<?> type, @Nullable PropertyDescriptor property) {

		boolean known(ConfigurationPropertyName name) {
			return this.property != null || this.index >= name.getNumberOfElements();
		}

	}

}

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

import java.beans.PropertyDescriptor;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.mcpstdio.autoconfigure.McpStdioConfigurationException.Problem;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.util.ReflectionUtils;

/**
 * The keys of a server's settings, read from the properties classes themselves, so that a
 * key added there is known here without a list to keep in step.
 *
 * @author mcp-stdio authors
 */
final class ServerKeys {

	private ServerKeys() {
	}

	/**
	 * Find the first element of {@code name}, from {@code start}, that is not a key of
	 * {@code type} (nested keys included); the keys of a map or a list are free.
	 * @param type the settings class, such as {@link McpStdioProperties.Server}
	 * @param name a property name
	 * @param start the index of the first key element
	 * @return the unknown element, or {@code null} when every element is known
	 */
	static @Nullable Key unknownElement(Class<?> type, ConfigurationPropertyName name, int start) {
		Key key = walk(type, name, start);
		return (key.property() == null && key.index() < name.getNumberOfElements()) ? key : null;
	}

	/**
	 * Say why the elements after a known key do not fit its type, as binding would
	 * silently ignore or misread them: a list or map for a key of one value
	 * ({@code enabled[0]}), a map for a list ({@code args.x}), a list for a map
	 * ({@code env[0]}, YAML's {@code env: [1, 2]}) or for a value of a map
	 * ({@code env.A[0]}).
	 * @param type the settings class
	 * @param name a property name
	 * @param start the index of the first key element
	 * @param server the server, for the report
	 * @return the problem, or {@code null} when the shape fits (or the key is unknown,
	 * which is reported as such)
	 */
	static @Nullable Problem shapeProblem(Class<?> type, ConfigurationPropertyName name, int start, String server) {
		Key key = walk(type, name, start);
		PropertyDescriptor property = key.property();
		if (property == null) {
			return null;
		}
		String dashed = DataObjectPropertyName.toDashedForm(property.getName());
		int first = key.index();
		boolean more = first < name.getNumberOfElements();
		String problem = null;
		String action = null;
		if (List.class.isAssignableFrom(property.getPropertyType())) {
			// args[0] or args.0; what is under an item, binding refuses itself
			if (more && !name.getElement(first, Form.ORIGINAL).chars().allMatch(Character::isDigit)) {
				problem = "'" + dashed + "' is a list, written here as a map";
				action = "write a list: " + dashed + ": [a, b] in YAML, " + dashed + "[0]=a in properties";
			}
		}
		else if (Map.class.isAssignableFrom(property.getPropertyType())) {
			for (int i = first; i < name.getNumberOfElements() && problem == null; i++) {
				if (name.isNumericIndex(i)) {
					problem = (i == first) ? "'" + dashed + "' is a map of names to values, written here as a list"
							: "the value of an entry of '" + dashed + "' is one string, written here as a list";
					action = "write name: value pairs: " + dashed + ": { LOG_LEVEL: debug } in YAML, " + dashed
							+ ".LOG_LEVEL=debug in properties";
				}
			}
		}
		else if (more) {
			problem = "'" + dashed + "' takes one value, written here as a list or a map";
			action = "write one value: " + dashed + ": value";
		}
		return (problem != null) ? new Problem(server, original(name), problem, action) : null;
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
			if (!isNested(match.getPropertyType())) {
				return new Key(end, current, match);
			}
			current = match.getPropertyType();
			index = end;
		}
		return new Key(index, current, null);
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

	/**
	 * Return the values of {@code settings} that are set, by dashed key
	 * ({@code restart.policy}); an empty list or map counts as unset.
	 * @param settings the settings
	 * @return the values that are set, by key
	 */
	static Map<String, Object> values(Object settings) {
		Map<String, Object> values = new LinkedHashMap<>();
		collect(settings, "", values);
		return values;
	}

	private static void collect(Object settings, String prefix, Map<String, Object> values) {
		for (PropertyDescriptor property : properties(settings.getClass()).values()) {
			Method getter = property.getReadMethod();
			Object value = ReflectionUtils.invokeMethod(getter, settings);
			String key = prefix + DataObjectPropertyName.toDashedForm(property.getName());
			if (value == null || (value instanceof Collection<?> c && c.isEmpty())
					|| (value instanceof Map<?, ?> m && m.isEmpty())) {
				continue;
			}
			if (isNested(property.getPropertyType())) {
				collect(value, key + ".", values);
			}
			else {
				values.put(key, value);
			}
		}
	}

	/**
	 * Return the keys of a settings class, dashed, comma separated: for messages.
	 * @param type the class
	 * @return its keys
	 */
	static String describe(Class<?> type) {
		List<String> keys = new ArrayList<>();
		for (PropertyDescriptor property : properties(type).values()) {
			keys.add(DataObjectPropertyName.toDashedForm(property.getName()));
		}
		return String.join(", ", keys);
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
	record Key(int index, Class<?> type, @Nullable PropertyDescriptor property) {
	}

	private static Map<String, PropertyDescriptor> properties(Class<?> type) {
		Map<String, PropertyDescriptor> properties = new LinkedHashMap<>();
		for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
			if (property.getReadMethod() != null && !"class".equals(property.getName())) {
				properties.put(uniform(property.getName()), property);
			}
		}
		return properties;
	}

	private static boolean isNested(@Nullable Class<?> type) {
		return type != null && type.getEnclosingClass() == McpStdioProperties.class;
	}

	private static String uniform(String name) {
		return name.replaceAll("[^A-Za-z0-9]", "").toLowerCase(Locale.ROOT);
	}

}

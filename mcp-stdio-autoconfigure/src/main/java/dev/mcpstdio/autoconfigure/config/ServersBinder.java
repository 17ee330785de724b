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
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import dev.mcpstdio.autoconfigure.config.McpStdioProperties.Server;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyCaching;
import org.springframework.boot.context.properties.source.ConfigurationPropertyCaching.CacheOverride;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.core.env.Environment;
import org.springframework.util.unit.DataSize;

/**
 * The binder of {@code mcp.stdio}: binds it once as Boot does (relaxed names, enums such
 * as {@code on-failure}), each server starting from {@code defaults}, and reports every
 * value that cannot be converted instead of stopping at the first.
 *
 * @author mcp-stdio authors
 */
final class ServersBinder {

	static final String SERVERS = McpStdioProperties.PREFIX + ".servers.";

	static final ConfigurationPropertyName SERVERS_NAME = ConfigurationPropertyName
		.of(McpStdioProperties.PREFIX + ".servers");

	static final ConfigurationPropertyName DEFAULTS_NAME = ConfigurationPropertyName
		.of(McpStdioProperties.PREFIX + ".defaults");

	private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9 .+-]{1,24}");

	private final Environment environment;

	private final Problems problems;

	private final McpStdioProperties properties = new McpStdioProperties();

	/** The keys binding gave a value to, by server. */
	private final Map<String, Set<String>> serverKeys = new HashMap<>();

	/** The keys binding gave a value to under {@code defaults}. */
	private final Set<String> defaultsKeys = new TreeSet<>();

	ServersBinder(Environment environment, Problems problems) {
		this.environment = environment;
		this.problems = problems;
	}

	/**
	 * Bind {@code mcp.stdio}, each server from its own names over {@code defaults}.
	 * @return the properties, bound; a value that cannot be converted keeps its default
	 * and is reported
	 */
	McpStdioProperties bind() {
		ScopedBinders servers = new ScopedBinders(this.environment, SERVERS_NAME);
		BindHandler handler = new AbstractBindHandler() {

			@Override
			@SuppressWarnings("unchecked")
			public <T> @Nullable Bindable<T> onStart(ConfigurationPropertyName name, Bindable<T> target,
					BindContext context) {
				if (name.equals(SERVERS_NAME) && !servers.entries.isEmpty()) {
					// bound below, each server from its own names
					return null;
				}
				return (target.getType().resolve() == Server.class) ? target.withExistingValue((T) newServer())
						: target;
			}

			@Override
			public Object onSuccess(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
					Object result) {
				Class<?> type = target.getType().resolve(Object.class);
				if (type != McpStdioProperties.class && type.getEnclosingClass() != McpStdioProperties.class) {
					bound(name);
				}
				return result;
			}

			@Override
			public @Nullable Object onFailure(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
					Exception error) {
				unconvertible(name, target.getType().resolve(Object.class), context.getConfigurationProperty());
				// unbound: the default stands in, and binding goes on
				return null;
			}

		};
		Binder.get(this.environment).bind(McpStdioProperties.PREFIX, Bindable.ofInstance(this.properties), handler);
		// the environment's sources kept cached while binding, as one bind of them all
		// does
		try (CacheOverride caching = ConfigurationPropertyCaching.get(this.environment).override()) {
			servers.entries.forEach((key, entry) -> servers.binder(entry)
				.bind(entry, Bindable.of(Server.class), handler)
				.ifBound((server) -> this.properties.getServers().put(key, server)));
		}
		return this.properties;
	}

	/**
	 * Bind Spring AI's stdio connections.
	 * @return the connections, by name
	 */
	Map<String, Connection> connections() {
		return Binder.get(this.environment)
			.bind(SpringAiStdio.CONNECTIONS, Bindable.mapOf(String.class, Connection.class))
			.orElse(Map.of());
	}

	/**
	 * Return the keys a server sets itself, such as {@code restart.policy}.
	 * @param name the server's name
	 * @return its keys
	 */
	Set<String> keys(String name) {
		return this.serverKeys.getOrDefault(name, Set.of());
	}

	/**
	 * Return the keys set under {@code defaults}.
	 * @return the keys
	 */
	Set<String> defaultsKeys() {
		return this.defaultsKeys;
	}

	/**
	 * Return a server with the values of {@code defaults}, for its own to override: a
	 * deep copy of them as bound (binding them again for each server took a tenth of the
	 * start-up of a thousand).
	 * @return a new server
	 */
	Server newServer() {
		return copy(this.properties.getDefaults(), new Server());
	}

	private static <T> T copy(Object from, T to) {
		BeanWrapper source = new BeanWrapperImpl(from);
		BeanWrapper target = new BeanWrapperImpl(to);
		for (PropertyDescriptor property : source.getPropertyDescriptors()) {
			String name = property.getName();
			Object value = source.isReadableProperty(name) ? source.getPropertyValue(name) : null;
			if (target.isWritableProperty(name)) {
				target.setPropertyValue(name, (value instanceof List<?> list) ? new ArrayList<>(list)
						: (value instanceof Map<?, ?> map) ? new LinkedHashMap<>(map) : value);
			}
			else if (value != null && value.getClass().getEnclosingClass() == McpStdioProperties.class) {
				copy(value, Objects.requireNonNull(target.getPropertyValue(name)));
			}
		}
		return to;
	}

	private void unconvertible(ConfigurationPropertyName name, Class<?> type,
			@Nullable ConfigurationProperty property) {
		// only typed keys fail to convert; still, a value is quoted only when it is a
		// short plain word, never what could be a secret pasted in the wrong place
		Object value = (property != null) ? property.getValue() : null;
		String shown = (value != null && PLAIN.matcher(value.toString()).matches()) ? "'" + value + "'" : "the value";
		String server = SERVERS_NAME.isAncestorOf(name)
				? name.getElement(SERVERS_NAME.getNumberOfElements(), Form.ORIGINAL)
				: DEFAULTS_NAME.isAncestorOf(name) ? "(defaults)" : "(all)";
		String expected = type.isEnum()
				? "one of " + Arrays.stream(type.getEnumConstants())
					.map((constant) -> ((Enum<?>) constant).name().toLowerCase(Locale.ROOT).replace('_', '-'))
					.collect(Collectors.joining(", "))
				: (type == Duration.class) ? "a duration such as 500ms, 2s or 1m"
						: (type == DataSize.class) ? "a size such as 512KB or 16MB"
								: (type == Integer.class || type == int.class) ? "a whole number"
										: (type == Boolean.class || type == boolean.class) ? "true or false"
												: "a " + type.getSimpleName();
		this.problems.add(server, PropertyNames.original(name), shown + " is not " + expected,
				(type.isEnum() ? "use " : "write ") + expected);
	}

	/**
	 * Note a key binding gave a value to, such as {@code restart.policy}, and {@code env}
	 * or {@code args} as a whole: where a value comes from and which a server sets.
	 */
	private void bound(ConfigurationPropertyName bound) {
		boolean server = SERVERS_NAME.isAncestorOf(bound);
		int index = server ? SERVERS_NAME.getNumberOfElements() + 1 : DEFAULTS_NAME.getNumberOfElements();
		// an element of a list, such as sandbox.read-write[0], stands for the list (and
		// Boot's subName fails on some such names)
		ConfigurationPropertyName name = bound;
		while (name.getNumberOfElements() > index + 1 && name.isLastElementIndexed()) {
			name = name.getParent();
		}
		if ((server || DEFAULTS_NAME.isAncestorOf(name)) && name.getNumberOfElements() > index) {
			ConfigurationPropertyName key = name.subName(index);
			String first = key.getElement(0, Form.DASHED);
			(server ? this.serverKeys.computeIfAbsent(name.getElement(index - 1, Form.ORIGINAL),
					(serverName) -> new TreeSet<>()) : this.defaultsKeys)
				.add((first.equals("env") || first.equals("args")) ? first : key.toString());
		}
	}

}

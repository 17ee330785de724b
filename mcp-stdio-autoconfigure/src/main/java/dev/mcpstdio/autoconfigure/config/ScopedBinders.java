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
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.PropertySourcesPlaceholdersResolver;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Binders that each list only the names under one entry of a map, such as one server.
 * <p>
 * Boot's binder lists every name of the environment once per map or list it binds; with
 * each server's {@code env} and {@code args}, a thousand servers made binding most of the
 * start-up. Values are still looked up in every source, in order, as Boot does.
 *
 * @author mcp-stdio authors
 */
final class ScopedBinders {

	private final Environment environment;

	private final Iterable<ConfigurationPropertySource> sources;

	/**
	 * The name of each entry of the map by its key, in the order Boot's map binding meets
	 * them.
	 */
	final Map<String, ConfigurationPropertyName> entries = new LinkedHashMap<>();

	private final Map<ConfigurationPropertyName, Map<ConfigurationPropertySource, List<ConfigurationPropertyName>>> names = new HashMap<>();

	ScopedBinders(Environment environment, ConfigurationPropertyName map) {
		this.environment = environment;
		this.sources = ConfigurationPropertySources.get(environment);
		int depth = map.getNumberOfElements();
		for (ConfigurationPropertySource source : this.sources) {
			if (source instanceof IterableConfigurationPropertySource iterable) {
				iterable.stream().filter(map::isAncestorOf).forEach((name) -> {
					ConfigurationPropertyName entry = map.isParentOf(name) ? name : name.chop(depth + 1);
					this.entries.putIfAbsent(entry.getElement(depth, Form.ORIGINAL), entry);
					this.names.computeIfAbsent(entry, (key) -> new IdentityHashMap<>())
						.computeIfAbsent(source, (key) -> new ArrayList<>())
						.add(name);
				});
			}
		}
	}

	/**
	 * Return a binder for one entry of the map.
	 * @param entry the entry's name
	 * @return a binder listing only the names under it
	 */
	Binder binder(ConfigurationPropertyName entry) {
		Map<ConfigurationPropertySource, List<ConfigurationPropertyName>> names = this.names.getOrDefault(entry,
				Map.of());
		List<ConfigurationPropertySource> scoped = new ArrayList<>();
		for (ConfigurationPropertySource source : this.sources) {
			scoped.add((source instanceof IterableConfigurationPropertySource)
					? new Scoped(source, names.getOrDefault(source, List.of())) : source);
		}
		return new Binder(scoped, new PropertySourcesPlaceholdersResolver(this.environment));
	}

	/** A source that lists the given names, and has only those. */
	private record Scoped(ConfigurationPropertySource source,
			List<ConfigurationPropertyName> names) implements IterableConfigurationPropertySource {

		@Override
		public Stream<ConfigurationPropertyName> stream() {
			return this.names.stream();
		}

		@Override
		public @Nullable ConfigurationProperty getConfigurationProperty(ConfigurationPropertyName name) {
			// the process environment also answers to legacy names it does not list
			boolean listed = this.source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource
					|| this.names.contains(name);
			return listed ? this.source.getConfigurationProperty(name) : null;
		}

		@Override
		public @Nullable Object getUnderlyingSource() {
			return this.source.getUnderlyingSource();
		}

	}

}

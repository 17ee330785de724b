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

package dev.mcpstdio.core.secrets;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * The secret values of one server, masked wherever its output goes.
 *
 * @author mcp-stdio authors
 */
public final class SecretValues {

	// Those of its env entries whose names look secret, and whatever else the
	// configuration registers, as CI systems mask registered secrets. Immutable;
	// toString() never shows a value.

	/** No values. */
	public static final SecretValues NONE = new SecretValues(List.of());

	/**
	 * Shorter values are not registered, nor are the words of a switch: masking them
	 * would garble every log line.
	 */
	public static final int MIN_LENGTH = 4;

	private static final Set<String> SWITCH_WORDS = Set.of("true", "false", "yes", "no", "on", "off", "null", "none",
			"enabled", "disabled");

	/** Longest first, so that a value holding another is masked whole. */
	private final List<String> values;

	private SecretValues(List<String> values) {
		this.values = values;
	}

	/**
	 * Register values.
	 * @param values the values; short ones and switch words are left out
	 * @return the registered values
	 */
	public static SecretValues of(Collection<String> values) {
		List<String> kept = values.stream()
			.filter((value) -> value != null && value.strip().length() >= MIN_LENGTH
					&& !SWITCH_WORDS.contains(value.strip().toLowerCase(Locale.ROOT)))
			.distinct()
			.sorted(Comparator.comparingInt(String::length).reversed().thenComparing(Comparator.naturalOrder()))
			.toList();
		return kept.isEmpty() ? NONE : new SecretValues(kept);
	}

	/**
	 * Register the values of the variables whose names look secret.
	 * @param environment variables and their values
	 * @return the registered values
	 */
	public static SecretValues ofSecretNamed(Map<String, String> environment) {
		return of(environment.entrySet()
			.stream()
			.filter((variable) -> SecretSanitizer.isSecretName(variable.getKey()))
			.map(Map.Entry::getValue)
			.toList());
	}

	/**
	 * Return these values and those of another set.
	 * @param other the other values
	 * @return both together
	 */
	public SecretValues and(SecretValues other) {
		return of(Stream.concat(this.values.stream(), other.values.stream()).toList());
	}

	/**
	 * Replace every occurrence of a registered value by {@link SecretSanitizer#MASK}.
	 * @param text the text
	 * @return the text with the values masked
	 */
	public String mask(String text) {
		String result = text;
		for (String value : this.values) {
			result = result.replace(value, SecretSanitizer.MASK);
		}
		return result;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		return other instanceof SecretValues secrets && this.values.equals(secrets.values);
	}

	@Override
	public int hashCode() {
		return this.values.hashCode();
	}

	@Override
	public String toString() {
		return "SecretValues[" + this.values.size() + " values]";
	}

}

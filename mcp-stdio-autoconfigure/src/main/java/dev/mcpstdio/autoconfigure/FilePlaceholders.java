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

import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Resolves the placeholders of the common {@code mcpServers} format in a value of the
 * servers file: {@code ${VAR}}, and {@code ${VAR:-default}} where the default stands in
 * for a variable that is unset or empty (as in a shell). {@code \${} is a literal {@code
 * ${}.
 *
 * @author mcp-stdio authors
 */
final class FilePlaceholders {

	private static final Pattern PLACEHOLDER = Pattern
		.compile("\\\\\\$\\{|\\$\\{(?:([A-Za-z_][A-Za-z0-9_.-]*)(?::-([^}]*))?})?");

	private FilePlaceholders() {
	}

	/**
	 * Resolve the placeholders of a value.
	 * @param value the value as written in the file
	 * @param lookup the value of a variable, {@code null} when it is unset
	 * @return the resolved value
	 * @throws UnresolvableException for a variable without a value or default, or a
	 * malformed placeholder
	 */
	static String resolve(String value, Function<String, @Nullable String> lookup) {
		Matcher matcher = PLACEHOLDER.matcher(value);
		StringBuilder resolved = new StringBuilder();
		while (matcher.find()) {
			String replacement;
			if (matcher.group().startsWith("\\")) {
				replacement = "${";
			}
			else if (matcher.group(1) == null) {
				throw new UnresolvableException(null);
			}
			else {
				String variable = matcher.group(1);
				String found = lookup.apply(variable);
				String fallback = matcher.group(2);
				if (fallback != null && (found == null || found.isEmpty())) {
					replacement = fallback;
				}
				else if (found == null) {
					throw new UnresolvableException(variable);
				}
				else {
					replacement = found;
				}
			}
			matcher.appendReplacement(resolved, Matcher.quoteReplacement(replacement));
		}
		matcher.appendTail(resolved);
		return resolved.toString();
	}

	/**
	 * A placeholder without a value.
	 */
	static final class UnresolvableException extends RuntimeException {

		private final @Nullable String variable;

		UnresolvableException(@Nullable String variable) {
			super((variable != null) ? "the variable " + variable + " is not set" : "a placeholder is malformed");
			this.variable = variable;
		}

		/**
		 * Return the variable that has no value.
		 * @return its name, or {@code null} when the placeholder is malformed
		 */
		@Nullable String variable() {
			return this.variable;
		}

	}

}

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

package dev.mcpstdio.core;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Explains a start-up failure caused by the environment allow-list: when the stderr of a
 * server that exited names a variable the application has but the server did not get, one
 * hint names that variable (never its value) and how to pass it on.
 *
 * @author mcp-stdio authors
 */
public final class WithheldVariableHint {

	/** A word that could be a variable name, as environment variables are written. */
	private static final Pattern WORD = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

	/** Shorter names are too likely to be ordinary words. */
	private static final int MIN_LENGTH = 3;

	private WithheldVariableHint() {
	}

	/**
	 * Return the hint for a server that exited during start-up, if its stderr names a
	 * withheld variable; the first one named wins.
	 * @param jvmVariables the names of the JVM's environment variables
	 * @param serverVariables the names of the variables the server got
	 * @param stderrTail the last lines of the server's stderr
	 * @param origin where the server was configured: the hint names the user's own key
	 * @return one sentence naming the variable and how to pass it, or empty
	 */
	public static Optional<String> hint(Set<String> jvmVariables, Set<String> serverVariables, List<String> stderrTail,
			ServerOrigin origin) {
		for (String line : stderrTail) {
			Matcher matcher = WORD.matcher(line);
			while (matcher.find()) {
				String word = matcher.group();
				if (word.length() >= MIN_LENGTH && looksLikeVariable(word) && jvmVariables.contains(word)
						&& !serverVariables.contains(word)) {
					return Optional.of(sentence(word, origin));
				}
			}
		}
		return Optional.empty();
	}

	private static boolean looksLikeVariable(String word) {
		// a lower-case word of stderr ("path", "user") is prose; http_proxy is not
		return word.indexOf('_') >= 0 || word.chars().anyMatch(Character::isUpperCase);
	}

	private static String sentence(String variable, ServerOrigin origin) {
		return "Hint: the server's stderr names " + variable + ", a variable of the application that the server did "
				+ "not get (a server gets only an allow-list of the application's environment); pass it with "
				+ origin.passVariable(variable) + " or set " + origin.inheritEnvProperty() + "=true";
	}

}

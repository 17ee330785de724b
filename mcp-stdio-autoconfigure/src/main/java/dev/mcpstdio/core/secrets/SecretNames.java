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

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The rule of which names (of a flag, a variable, a header, a query parameter) name a
 * secret.
 *
 * @author mcp-stdio authors
 */
final class SecretNames {

	private static final Set<String> SECRET_WORDS = Set.of("key", "keys", "apikey", "pass", "passwd", "password",
			"passwords", "passphrase", "pwd", "pw", "secret", "secrets", "token", "auth", "authorization", "bearer",
			"credential", "credentials", "sig", "signature", "cookie", "jwt", "privatekey", "accesskey", "secretkey");

	private static final List<String> SECRET_PARTS = List.of("password", "passwd", "passphrase", "secret", "credential",
			"apikey", "accesskey", "privatekey", "authtoken", "accesstoken");

	/** Last words of names that name where or what a secret is, not the secret. */
	private static final Set<String> NEUTRAL_LAST_WORDS = Set.of("file", "files", "path", "dir", "directory", "id",
			"ids", "name", "names", "type", "kind", "size", "length", "limit", "count", "env", "var", "url", "uri",
			"host", "port", "timeout", "ttl", "expiry", "expires", "alg", "algorithm", "format", "mode", "store",
			"location", "prefix");

	/** Variables every shell sets whose names only look like secrets. */
	private static final Set<String> WELL_KNOWN_NAMES = Set.of("PWD", "OLDPWD");

	/** First words of names that make them switches: {@code --no-auth}. */
	private static final Set<String> SWITCH_FIRST_WORDS = Set.of("no", "enable", "disable", "skip", "without");

	/**
	 * Where a name splits into words: punctuation, and a capital after a lower case or a
	 * digit.
	 */
	private static final Pattern WORD_BOUNDARY = Pattern
		.compile("\\P{javaLetterOrDigit}+|(?<=[\\p{javaLowerCase}\\p{javaDigit}])(?=\\p{javaUpperCase})");

	private SecretNames() {
	}

	/**
	 * Return whether a name looks like it names a secret, as
	 * {@link SecretSanitizer#isSecretName(String)} says.
	 * @param name the name, with or without leading dashes
	 * @return whether its value is to be masked
	 */
	static boolean isSecretName(String name) {
		if (WELL_KNOWN_NAMES.contains(name)) {
			return false;
		}
		List<String> words = words(name);
		if (words.isEmpty() || NEUTRAL_LAST_WORDS.contains(words.get(words.size() - 1))
				|| (words.size() > 1 && SWITCH_FIRST_WORDS.contains(words.get(0)))) {
			return false;
		}
		String joined = String.join("", words);
		return words.stream().anyMatch(SECRET_WORDS::contains) || SECRET_PARTS.stream().anyMatch(joined::contains)
				|| joined.endsWith("token");
	}

	/**
	 * Split a name into lower-case words at punctuation and camel case:
	 * {@code X-Api-Key}, {@code apiKey} and {@code API_KEY} all give {@code api},
	 * {@code key}.
	 */
	private static List<String> words(String name) {
		return Arrays.stream(WORD_BOUNDARY.split(name))
			.filter((word) -> !word.isEmpty())
			.map((word) -> word.toLowerCase(Locale.ROOT))
			.toList();
	}

}

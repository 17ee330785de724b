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

package dev.mcpstdio.core.server;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.secrets.SecretSanitizer;
import dev.mcpstdio.core.tree.Platform;
import dev.mcpstdio.core.tree.ProcessMarkers;
import org.jspecify.annotations.Nullable;

/**
 * The environment a server gets: an allow-list of the application's, its own variables,
 * the process markers; and the hint when a server misses one that was withheld.
 *
 * @author mcp-stdio authors
 */
final class ServerEnvironment {

	private static final Set<String> UNIX_ALLOWED = Set.of("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG",
			"TMPDIR");

	private static final Set<String> WINDOWS_ALLOWED = Set.of("APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA",
			"PATH", "PATHEXT", "PROCESSOR_ARCHITECTURE", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "TMP", "USERNAME",
			"USERPROFILE", "PROGRAMFILES", "COMSPEC", "WINDIR");

	/** A word that could be a variable name, as environment variables are written. */
	private static final Pattern WORD = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

	private ServerEnvironment() {
	}

	/**
	 * Refuse an environment the OS cannot take, naming the variable, never its value (the
	 * JDK's own message quotes the value: a user's token).
	 */
	static void checkEnvironment(StdioServerSpec spec, Map<String, String> env) {
		env.forEach((name, value) -> {
			String what = (name.isEmpty() || name.indexOf('=') >= 0 || name.indexOf('\u0000') >= 0)
					? "its name is empty or holds '=' or a NUL character"
					: (value.indexOf('\u0000') >= 0) ? "its value holds a NUL character" : null;
			if (what != null) {
				throw new McpStdioException(spec.name(),
						"Could not start " + McpStdioException.describe(spec.name()) + ": environment variable "
								+ SecretSanitizer.quote(name, 100, spec.secrets()) + " cannot "
								+ "be passed to a process (" + what + "); the value is not shown");
			}
		});
	}

	/**
	 * Return the environment for one start of a server: an allow-list of the JVM's own
	 * variables (so that the application's secrets do not reach servers), its own
	 * variables, and the process markers on top.
	 * @param spec the server
	 * @param instance the id of this start
	 * @param jvmEnvironment the application's own environment
	 * @param application the application's id, a marker
	 * @return the complete environment
	 */
	static Map<String, String> environment(StdioServerSpec spec, String instance, Map<String, String> jvmEnvironment,
			String application) {
		Map<String, String> env = new LinkedHashMap<>();
		for (Map.Entry<String, String> entry : jvmEnvironment.entrySet()) {
			if (spec.inheritEnv() || isAllowed(entry.getKey())) {
				env.put(entry.getKey(), entry.getValue());
			}
		}
		env.putAll(spec.env());
		// Markers last: a configured value must not hide a process from the tree
		env.put(ProcessMarkers.SERVER, spec.name());
		env.put(ProcessMarkers.OWNER_PID, Long.toString(ProcessMarkers.CURRENT_PID));
		env.put(ProcessMarkers.INSTANCE, instance);
		env.put(ProcessMarkers.APPLICATION, application);
		return env;
	}

	private static boolean isAllowed(String name) {
		return Platform.current().isWindows() ? WINDOWS_ALLOWED.contains(name.toUpperCase(Locale.ROOT))
				: (UNIX_ALLOWED.contains(name) || name.startsWith("LC_"));
	}

	/**
	 * Explain a start-up failure caused by the allow-list: the first variable the stderr
	 * of a server that exited names, that the application has but the server did not get.
	 * @param jvmVariables the names of the JVM's environment variables
	 * @param serverVariables the names of the variables the server got
	 * @param stderrTail the last lines of the server's stderr
	 * @param origin where the server was configured: the hint names the user's own key
	 * @return one sentence naming the variable (never its value) and how to pass it, or
	 * {@code null}
	 */
	static @Nullable String hint(Set<String> jvmVariables, Set<String> serverVariables, List<String> stderrTail,
			StdioServerSpec.Origin origin) {
		for (String line : stderrTail) {
			Matcher matcher = WORD.matcher(line);
			while (matcher.find()) {
				String word = matcher.group();
				// shorter names are likely ordinary words, and so is a lower-case word of
				// stderr ("path", "user"); http_proxy is not
				boolean variableLike = word.length() >= 3
						&& (word.indexOf('_') >= 0 || word.chars().anyMatch(Character::isUpperCase));
				if (variableLike && jvmVariables.contains(word) && !serverVariables.contains(word)) {
					return "Hint: the server's stderr names " + word + ", a variable of the application that the "
							+ "server did not get (a server gets only an allow-list of the application's "
							+ "environment); pass it with " + origin.passVariable(word) + " or set "
							+ origin.inheritEnvProperty() + "=true";
				}
			}
		}
		return null;
	}

}

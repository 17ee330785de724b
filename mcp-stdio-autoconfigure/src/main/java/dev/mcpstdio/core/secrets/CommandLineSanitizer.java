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

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The masking of a command line: an argument that names a secret masks the next, a
 * {@code name=value} that does masks its value, a long Java class path is shortened.
 *
 * @author mcp-stdio authors
 */
final class CommandLineSanitizer {

	/** Words that introduce the credentials of an HTTP authorization. */

	private static final int LONG_CLASS_PATH = 160;

	private static final List<String> CLASS_PATH_FLAGS = List.of("-cp", "-classpath", "--class-path");

	/** A whole argument of the form {@code name=value} or {@code name:value}. */
	private static final Pattern NAMED_ARGUMENT = Pattern.compile("([A-Za-z0-9_.-]*[A-Za-z0-9])(\\s*[=:]\\s*)(.*)",
			Pattern.DOTALL);

	private CommandLineSanitizer() {
	}

	/**
	 * Return a command line fit to show, as
	 * {@link SecretSanitizer#commandLine(String, List, SecretValues)} says.
	 * @param command the executable
	 * @param args its arguments
	 * @param secrets the server's secret values
	 * @return the sanitized command line
	 */
	static String commandLine(String command, List<String> args, SecretValues secrets) {
		List<String> parts = new ArrayList<>(args.size() + 1);
		parts.add(SecretSanitizer.text(command, secrets));
		boolean maskNext = false;
		boolean classPathNext = false;
		for (String given : args) {
			String arg = secrets.mask(given);
			if (classPathNext) {
				parts.add(abbreviateClassPath(arg));
				classPathNext = false;
				continue;
			}
			if (maskNext) {
				if (SecretSanitizer.AUTH_SCHEMES.contains(arg.toLowerCase(Locale.ROOT))) {
					// Authorization: Bearer <token> as three arguments
					parts.add(arg);
					continue;
				}
				maskNext = false;
				if (!isFlag(arg)) {
					parts.add(SecretSanitizer.MASK);
					continue;
				}
			}
			if (CLASS_PATH_FLAGS.contains(arg)) {
				parts.add(arg);
				classPathNext = true;
				continue;
			}
			maskNext = addArgument(parts, arg);
		}
		return String.join(" ", parts);
	}

	/**
	 * Add an argument that no earlier one decides, masked where it names a secret.
	 * @return whether the next argument is the secret it names
	 */
	private static boolean addArgument(List<String> parts, String arg) {
		Matcher named = NAMED_ARGUMENT.matcher(arg);
		if (named.matches()) {
			String value = named.group(3);
			if (SecretNames.isSecretName(named.group(1)) && !SecretSanitizer.PLACEHOLDER.matcher(value).matches()) {
				parts.add(named.group(1) + named.group(2)
						+ (value.isEmpty() ? "" : SecretSanitizer.maskAfterScheme(value)));
				// Authorization: <token>, as two arguments
				return value.isEmpty();
			}
			// --header=X-Api-Key: <secret>, --url=https://user:<secret>@host
			parts.add(SecretSanitizer.text(arg));
			return false;
		}
		if ((arg.startsWith("-") && SecretNames.isSecretName(arg)) || arg.equalsIgnoreCase("bearer")) {
			// --api-key <secret>, Bearer <secret>
			parts.add(arg);
			return true;
		}
		parts.add(SecretSanitizer.text(arg));
		return false;
	}

	/** A flag, not the value of the flag before it: {@code --verbose}, {@code -y}. */
	private static boolean isFlag(String arg) {
		return (arg.length() > 2 && arg.startsWith("--"))
				|| (arg.length() == 2 && arg.charAt(0) == '-' && Character.isLetter(arg.charAt(1)));
	}

	private static String abbreviateClassPath(String classPath) {
		String[] entries = classPath.split(File.pathSeparator);
		if (classPath.length() <= LONG_CLASS_PATH || entries.length < 2) {
			return classPath;
		}
		return entries[0] + File.pathSeparator + "...(" + entries.length + " entries)";
	}

}

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

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Makes a command line fit to show in logs, errors and the actuator endpoint. Masks the
 * secret-looking arguments of a command line, the way Spring Boot's sanitizer masks
 * secret-looking keys: the value of a {@code name=value} argument or of the argument that
 * follows a {@code --name} flag is shown as {@value #MASK} when the name contains
 * {@code password}, {@code secret}, {@code token}, {@code key} or {@code credential}, and
 * the password of a URI's user information is masked too. A long Java class path
 * ({@code -cp}) is shortened to its first entry and its length.
 *
 * @author mcp-stdio authors
 */
final class CommandLineSanitizer {

	static final String MASK = "******";

	private static final String[] SENSITIVE = { "password", "passwd", "secret", "token", "key", "credential",
			"authorization" };

	private static final int LONG_CLASS_PATH = 160;

	private static final List<String> CLASS_PATH_FLAGS = List.of("-cp", "-classpath", "--class-path");

	private static final Pattern URI_USER_INFO = Pattern
		.compile("^([a-zA-Z][a-zA-Z0-9+.-]*://[^:/@\\s]*):([^@/\\s]+)@");

	private CommandLineSanitizer() {
	}

	/**
	 * Return the command line with secrets masked, its parts joined by spaces.
	 * @param command the executable
	 * @param args its arguments
	 * @return the sanitized command line
	 */
	static String sanitize(String command, List<String> args) {
		List<String> parts = new ArrayList<>(args.size() + 1);
		parts.add(command);
		boolean maskNext = false;
		boolean classPathNext = false;
		for (String arg : args) {
			if (classPathNext) {
				parts.add(abbreviateClassPath(arg));
				classPathNext = false;
				continue;
			}
			if (CLASS_PATH_FLAGS.contains(arg)) {
				parts.add(arg);
				classPathNext = true;
				maskNext = false;
				continue;
			}
			if (maskNext && !arg.startsWith("--")) {
				parts.add(MASK);
				maskNext = false;
				continue;
			}
			maskNext = false;
			int equals = arg.indexOf('=');
			if (equals > 0) {
				String name = arg.substring(0, equals);
				parts.add(name + "=" + (isSensitive(name) ? MASK : maskUserInfo(arg.substring(equals + 1))));
			}
			else if (arg.startsWith("-") && isSensitive(arg)) {
				// The secret is the next argument: --api-key sk-123
				parts.add(arg);
				maskNext = true;
			}
			else {
				parts.add(maskUserInfo(arg));
			}
		}
		return String.join(" ", parts);
	}

	private static String abbreviateClassPath(String classPath) {
		String[] entries = classPath.split(File.pathSeparator);
		if (classPath.length() <= LONG_CLASS_PATH || entries.length < 2) {
			return classPath;
		}
		return entries[0] + File.pathSeparator + "...(" + entries.length + " entries)";
	}

	static boolean isSensitive(String name) {
		String lower = name.toLowerCase(Locale.ROOT);
		for (String word : SENSITIVE) {
			if (lower.contains(word)) {
				return true;
			}
		}
		return false;
	}

	private static String maskUserInfo(String arg) {
		Matcher matcher = URI_USER_INFO.matcher(arg);
		return matcher.find() ? matcher.group(1) + ":" + MASK + "@" + arg.substring(matcher.end()) : arg;
	}

}

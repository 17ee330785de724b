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

package dev.mcpstdio.actuate;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Masks the secret-looking arguments of a command line, the way Spring Boot's sanitizer
 * masks secret-looking keys: the value of a {@code name=value} argument or of the
 * argument that follows a {@code --name} flag is shown as {@value #MASK} when the name
 * contains {@code password}, {@code secret}, {@code token}, {@code key} or
 * {@code credential}, and the password of a URI's user information is masked too.
 *
 * @author mcp-stdio authors
 */
final class CommandLineSanitizer {

	static final String MASK = "******";

	private static final String[] SENSITIVE = { "password", "passwd", "secret", "token", "key", "credential",
			"authorization" };

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
		for (String arg : args) {
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

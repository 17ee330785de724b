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

import java.util.List;
import java.util.Locale;
import java.util.function.ToIntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Masks what looks like a secret in a command line or in free text.
 *
 * @author mcp-stdio authors
 */
public final class SecretSanitizer {

	// Before it reaches a log, an exception, a JSON-RPC error or the endpoint, keeping
	// the text around it and a well-known token's prefix (ghp_******). A secret is
	// recognized by its name or its shape, the cases docs/security.md lists; the
	// overloads that take a server's SecretValues mask its registered values first,
	// whatever their shape.

	/** What a secret is replaced by. */
	public static final String MASK = "******";

	/** A name and its separator; the value after it is found by hand. */
	private static final Pattern NAME_AND_SEPARATOR = Pattern
		.compile("(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]*[A-Za-z0-9])(\"?\\s*[=:]\\s*)");

	/** The schemes of an {@code Authorization} value, whose next word is a secret. */
	static final List<String> AUTH_SCHEMES = List.of("bearer", "basic", "digest", "token", "bot", "negotiate");

	private static final Pattern AUTH_SCHEME = Pattern.compile("(?i)(" + String.join("|", AUTH_SCHEMES) + ")\\s+");

	/**
	 * A placeholder the user types, such as {@code ${GITHUB_TOKEN}}: it names a secret,
	 * it is none.
	 */
	static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{[A-Za-z_][A-Za-z0-9_.-]{0,127}}");

	/**
	 * The password of a URI's user information runs to the last {@code @} before the
	 * host.
	 */
	private static final Pattern URI_PASSWORD = Pattern.compile(
			"(?<![a-zA-Z0-9+.-])([a-zA-Z][a-zA-Z0-9+.-]*://[^\\s:/@\"']{0,256}):(\\S{1,512})@(?=[^\\s@/?#]*(?:[/?#\\s]|$))");

	private static final Pattern ORACLE_PASSWORD = Pattern
		.compile("(?i)(jdbc:oracle:[a-z0-9]+:[^\\s/@:\"']{1,256}/)([^\\s@]{1,512})@");

	/**
	 * A Bearer value, a JWT, then well-known token shapes, masked in this order; group 1,
	 * where there is one, is the prefix that names the kind and stays.
	 */
	private static final List<Pattern> TOKEN_SHAPES = List.of(
			Pattern.compile("(?i)\\b(bearer\\s+)(?=[\\w.~+/=-]{0,200}[0-9.~+/=])[\\w.~+/=-]{8,}"),
			Pattern.compile("\\beyJ[\\w-]{4,}\\.[\\w-]{4,}\\.[\\w-]*"),
			Pattern.compile("\\b(gh[pousr]_)[A-Za-z0-9]{20,}"), Pattern.compile("\\b(github_pat_)[A-Za-z0-9_]{20,}"),
			Pattern.compile("\\b(sk-)(?=[A-Za-z0-9_-]{0,200}[0-9])[A-Za-z0-9_-]{16,}"),
			Pattern.compile("\\b(xox[abposr]-)[A-Za-z0-9-]{8,}"), Pattern.compile("\\b(AKIA|ASIA)[A-Z0-9]{16}\\b"),
			Pattern.compile("\\b(AIza)[A-Za-z0-9_-]{35}"), Pattern.compile("\\b([rs]k_(?:live|test)_)[A-Za-z0-9]{10,}"),
			Pattern.compile("\\b(glpat-)[A-Za-z0-9_-]{20,}"), Pattern.compile("\\b(npm_)[A-Za-z0-9]{36}"),
			Pattern.compile("\\b(hf_)[A-Za-z0-9]{30,}"));

	private SecretSanitizer() {
	}

	/**
	 * Return a command line fit to show: its parts joined by spaces, the registered
	 * secret values of its server and what looks like a secret masked, a long Java class
	 * path ({@code -cp}) shortened to its first entry and its length.
	 * @param command the executable
	 * @param args its arguments
	 * @param secrets the server's secret values
	 * @return the sanitized command line
	 */
	public static String commandLine(String command, List<String> args, SecretValues secrets) {
		return CommandLineSanitizer.commandLine(command, args, secrets);
	}

	/**
	 * Return free text (a stderr line, an exception message) with what looks like a
	 * secret masked and every other word kept.
	 * @param text the text
	 * @return the sanitized text
	 */
	public static String text(String text) {
		return text(text, SecretValues.NONE);
	}

	/**
	 * Return free text about one server with its registered secret values masked, then
	 * what looks like a secret, as {@link #text(String)}.
	 * @param text the text
	 * @param secrets the server's secret values
	 * @return the sanitized text
	 */
	public static String text(String text, SecretValues secrets) {
		String result = printable(secrets.mask(text));
		// Cheap checks first: most lines (a flood of them too) hold none of these
		if (result.contains("://")) {
			result = maskGroup(URI_PASSWORD, result, 2);
		}
		if (result.contains("@")) {
			result = maskGroup(ORACLE_PASSWORD, result, 2);
		}
		if (result.indexOf('=') >= 0 || result.indexOf(':') >= 0) {
			result = maskNamedValues(result);
		}
		for (Pattern shape : TOKEN_SHAPES) {
			result = maskAfterPrefix(shape, result);
		}
		return result;
	}

	/**
	 * Return text with the characters that could forge or hide what is around it in a log
	 * or a terminal escaped as {@code \\uXXXX}: control characters but tab and newline
	 * (escape sequences, carriage returns, bells), and the Unicode marks that reorder or
	 * break lines. Every way a server's text goes out passes here.
	 * @param text the text
	 * @return the text, the same instance when there was nothing to escape
	 */
	public static String printable(String text) {
		if (text.chars().noneMatch((ch) -> isHidden((char) ch))) {
			return text;
		}
		StringBuilder escaped = new StringBuilder(text.length() + 16);
		for (char ch : text.toCharArray()) {
			escaped.append(isHidden(ch) ? String.format(Locale.ROOT, "\\u%04X", (int) ch) : String.valueOf(ch));
		}
		return escaped.toString();
	}

	private static boolean isHidden(char ch) {
		if (ch < 0x20) {
			return ch != '\t' && ch != '\n';
		}
		if (ch < 0x7F) {
			return false;
		}
		return ch <= 0x9F || ch == 0x061C || ch == 0x200E || ch == 0x200F || (ch >= 0x202A && ch <= 0x202E)
				|| (ch >= 0x2066 && ch <= 0x2069) || ch == 0x2028 || ch == 0x2029;
	}

	/**
	 * Return the start of a long text, sanitized, to quote in a log line. The text is
	 * sanitized before it is cut, so that a secret cut in two is still recognized.
	 * @param text the text
	 * @param maxLength the longest quote, without the {@code ...} that marks a cut
	 * @return the sanitized quote
	 */
	public static String quote(String text, int maxLength) {
		return quote(text, maxLength, SecretValues.NONE);
	}

	/**
	 * Return the start of a long text about one server, sanitized with its secret values,
	 * as {@link #quote(String, int)}.
	 * @param text the text
	 * @param maxLength the longest quote, without the {@code ...} that marks a cut
	 * @param secrets the server's secret values
	 * @return the sanitized quote
	 */
	public static String quote(String text, int maxLength, SecretValues secrets) {
		// masked whole before the cut: a value cut in two would not be recognized
		String masked = secrets.mask(text);
		if (masked.length() <= maxLength) {
			return text(masked);
		}
		String sanitized = text(masked.substring(0, Math.min(masked.length(), maxLength * 2)));
		return sanitized.substring(0, Math.min(sanitized.length(), maxLength)) + "...";
	}

	/**
	 * Return lines of free text, each sanitized as by {@link #text(String)}.
	 * @param lines the lines
	 * @return the sanitized lines
	 */
	public static List<String> lines(List<String> lines) {
		return lines(lines, SecretValues.NONE);
	}

	/**
	 * Return lines of free text about one server, each sanitized as by
	 * {@link #text(String, SecretValues)}.
	 * @param lines the lines
	 * @param secrets the server's secret values
	 * @return the sanitized lines
	 */
	public static List<String> lines(List<String> lines, SecretValues secrets) {
		return lines.stream().map((line) -> text(line, secrets)).toList();
	}

	/**
	 * Return whether a name (of a flag, a variable, a header, a query parameter) looks
	 * like it names a secret: one of its words (split at punctuation and camel case) is a
	 * secret word, or it contains a secret part or ends with {@code token}; but not when
	 * its last word names where or what a secret is ({@code -file}, {@code -id}, ...) or
	 * its first word makes it a switch ({@code --no-auth}).
	 * @param name the name, with or without leading dashes
	 * @return whether its value is to be masked
	 */
	public static boolean isSecretName(String name) {
		return SecretNames.isSecretName(name);
	}

	/** Mask a whole value, keeping an authorization scheme before it: Bearer ******. */
	static String maskAfterScheme(String value) {
		Matcher scheme = AUTH_SCHEME.matcher(value);
		if (scheme.lookingAt() && scheme.end() < value.length()) {
			return value.substring(0, scheme.end()) + MASK;
		}
		return MASK;
	}

	private static String maskNamedValues(String text) {
		Matcher matcher = NAME_AND_SEPARATOR.matcher(text);
		StringBuilder result = new StringBuilder();
		int copied = 0;
		int from = 0;
		while (from < text.length() && matcher.find(from)) {
			from = matcher.end();
			if (!SecretNames.isSecretName(matcher.group(1))) {
				continue;
			}
			int start = matcher.end();
			Matcher scheme = AUTH_SCHEME.matcher(text).region(start, text.length());
			if (scheme.lookingAt()) {
				start = scheme.end();
			}
			int[] value = value(text, start);
			if (value[0] == value[1] || PLACEHOLDER.matcher(text).region(value[0], value[1]).matches()) {
				continue;
			}
			result.append(text, copied, value[0]).append(MASK);
			copied = value[1];
			from = Math.max(from, value[1]);
		}
		// a masked value ends past 0: copied is still 0 only when nothing was masked
		return (copied == 0) ? text : result.append(text, copied, text.length()).toString();
	}

	/**
	 * Find the value that starts at {@code start}: inside quotes when it is quoted, else
	 * up to white space, a quote or a separator of query strings and lists.
	 * @return the start and the end of the value
	 */
	private static int[] value(String text, int start) {
		if (start < text.length() && (text.charAt(start) == '"' || text.charAt(start) == '\'')) {
			int close = text.indexOf(text.charAt(start), start + 1);
			return new int[] { start + 1, (close < 0) ? text.length() : close };
		}
		int end = start;
		while (end < text.length() && " \t\r\n\"'&;,".indexOf(text.charAt(end)) < 0) {
			end++;
		}
		return new int[] { start, end };
	}

	private static String maskGroup(Pattern pattern, String text, int group) {
		return mask(pattern, text, (matcher) -> matcher.start(group), (matcher) -> matcher.end(group));
	}

	/** Mask a whole match but its group 1, when it has one. */
	private static String maskAfterPrefix(Pattern pattern, String text) {
		return mask(pattern, text,
				(matcher) -> (matcher.groupCount() > 0 && matcher.group(1) != null) ? matcher.end(1) : matcher.start(),
				Matcher::end);
	}

	private static String mask(Pattern pattern, String text, ToIntFunction<Matcher> from, ToIntFunction<Matcher> to) {
		Matcher matcher = pattern.matcher(text);
		if (!matcher.find()) {
			return text;
		}
		StringBuilder result = new StringBuilder(text.length());
		int copied = 0;
		do {
			result.append(text, copied, from.applyAsInt(matcher)).append(MASK);
			copied = to.applyAsInt(matcher);
		}
		while (matcher.find());
		return result.append(text, copied, text.length()).toString();
	}

}

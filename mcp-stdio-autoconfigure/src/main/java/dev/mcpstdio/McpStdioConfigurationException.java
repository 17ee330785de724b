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

package dev.mcpstdio;

import java.util.List;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * Thrown before any server starts when the {@code mcp.stdio} configuration has errors:
 * every one of them, each naming its server and property. It is about the configuration
 * as a whole, so its {@link #serverName()} is {@code null}.
 *
 * @author mcp-stdio authors
 */
public class McpStdioConfigurationException extends McpStdioException {

	private final List<Problem> problems;

	public McpStdioConfigurationException(List<Problem> problems) {
		super("Invalid MCP server configuration: "
				+ problems.stream().map(Problem::describe).collect(Collectors.joining("; ")), (Throwable) null);
		this.problems = List.copyOf(problems);
	}

	public List<Problem> problems() {
		return this.problems;
	}

	/**
	 * Return a text of the configuration as one line: a server's name (and the property
	 * and problem that quote it) can hold any character, and a line break in it would
	 * split the report and the log. Control, format (a right-to-left override, which
	 * would show the text in another order) and line-separator characters are escaped:
	 * {@code \n}, {@code \r} and {@code \t} as in Java, the others as a backslash, a
	 * {@code u} and four hex digits.
	 * @param text the text, or {@code null}
	 * @return the text on one line
	 */
	public static String printable(@Nullable String text) {
		if (text == null) {
			return "null";
		}
		StringBuilder result = new StringBuilder(text.length());
		for (char c : text.toCharArray()) {
			switch (c) {
				case '\n' -> result.append("\\n");
				case '\r' -> result.append("\\r");
				case '\t' -> result.append("\\t");
				default -> {
					boolean escaped = Character.isISOControl(c) || Character.getType(c) == Character.FORMAT
							|| c == '\u2028' || c == '\u2029';
					result.append(escaped ? String.format("\\u%04x", (int) c) : String.valueOf(c));
				}
			}
		}
		return result.toString();
	}

	/**
	 * One configuration error: it names the server and the property, and says how to fix
	 * it.
	 *
	 * @param server the server's name, or {@code null} when the error is not about one
	 * @param property the full property name
	 * @param problem what is wrong
	 * @param action how to fix it
	 */
	public record Problem(String server, String property, String problem, String action) {

		String describe() {
			return "server '" + printable(this.server) + "', property '" + printable(this.property) + "': "
					+ printable(this.problem);
		}

	}

}

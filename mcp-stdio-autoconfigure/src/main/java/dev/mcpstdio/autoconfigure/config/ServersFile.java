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

package dev.mcpstdio.autoconfigure.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.exc.UnexpectedEndOfInputException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.io.ResourceLoader;

/**
 * A servers file in the common {@code mcpServers} JSON format, and its placeholders.
 *
 * @author mcp-stdio authors
 */
public final class ServersFile {

	/** A larger file is not a servers configuration. */
	public static final int MAX_SIZE = 4 * 1024 * 1024;

	/** How long finding and reading the file may take: a few kilobytes, even remote. */
	public static final Duration READ_TIMEOUT = Duration.ofSeconds(10);

	private static final String FORMAT = "the format is {\"mcpServers\": {\"name\": {\"command\": \"...\", \"args\":"
			+ " [...], \"env\": {...}, \"cwd\": \"...\"}}}";

	private static final JsonMapper MAPPER = JsonMapper.shared();

	private static final Pattern PLACEHOLDER = Pattern
		.compile("\\\\\\$\\{|\\$\\{(?:([A-Za-z_][A-Za-z0-9_.-]*)(?::-([^}]*))?})?");

	private ServersFile() {
	}

	/**
	 * Read the servers of a file: {@code {"mcpServers": {"name": {"command": "...",
	 * "args": [...], "env": {...}, "cwd": "..."}}}}, their values as written
	 * (placeholders unresolved). No error quotes its content: a value could be a secret.
	 * @param location a {@code classpath:} or URL location as Spring resolves it, or a
	 * plain path on the file system (else, as before, on the class path)
	 * @param resourceLoader the application's resource loader
	 * @param watch takes where the file is when it is one on the file system, also when
	 * it cannot be read
	 * @return the servers by name, in file order
	 * @throws InvalidFileException when the file cannot be read or is not of the format
	 */
	static Map<String, Entry> read(String location, ResourceLoader resourceLoader, Consumer<Path> watch) {
		JsonNode root;
		try {
			root = MAPPER.readTree(ServersFileLoader.load(location, resourceLoader, watch));
		}
		catch (StreamConstraintsException ex) {
			throw InvalidFileException.unusable(null, constraint(ex));
		}
		catch (JacksonException ex) {
			// Jackson's own message quotes the offending text
			throw InvalidFileException.unusable(null, "it is not valid JSON: " + describe(ex));
		}
		JsonNode servers = (root != null) ? root.get("mcpServers") : null;
		if (servers == null || !servers.isObject()) {
			throw InvalidFileException.unusable(null, "it has no \"mcpServers\" object at the top level");
		}
		Map<String, Entry> result = new LinkedHashMap<>();
		servers.properties()
			.forEach((server) -> result.put(server.getKey(), entry(server.getKey(), server.getValue())));
		return result;
	}

	/**
	 * Resolve the placeholders of a value of the file: <code>${VAR}</code>, and
	 * <code>${VAR:-default}</code> where the default stands in for a variable that is
	 * unset or empty (as in a shell); <code>\${</code> is a literal <code>${</code>.
	 * @param value the value as written in the file
	 * @param lookup the value of a variable, {@code null} when it is unset
	 * @return the resolved value
	 * @throws UnresolvableException for a variable without a value or default, or a
	 * malformed placeholder
	 */
	static String resolve(String value, Function<String, @Nullable String> lookup) {
		return PLACEHOLDER.matcher(value).replaceAll((match) -> {
			if (match.group().startsWith("\\")) {
				return Matcher.quoteReplacement("${");
			}
			if (match.group(1) == null) {
				throw new UnresolvableException(null);
			}
			String found = lookup.apply(match.group(1));
			String fallback = match.group(2);
			if (fallback != null && (found == null || found.isEmpty())) {
				return Matcher.quoteReplacement(fallback);
			}
			if (found == null) {
				throw new UnresolvableException(match.group(1));
			}
			return Matcher.quoteReplacement(found);
		});
	}

	private static String describe(JacksonException ex) {
		String what = (ex instanceof UnexpectedEndOfInputException) ? "it ends too early"
				: "unexpected text or structure";
		TokenStreamLocation location = ex.getLocation();
		if (location == null || location.getLineNr() < 1) {
			return what;
		}
		return what + " at line " + location.getLineNr() + ", column " + location.getColumnNr();
	}

	/**
	 * Say which limit of the parser the file is over. Jackson's messages of these name
	 * the limit and the size, never the text.
	 */
	private static String constraint(StreamConstraintsException ex) {
		String message = String.valueOf(ex.getOriginalMessage());
		if (message.contains("nesting depth")) {
			return "it is nested too deeply: more than "
					+ MAPPER.tokenStreamFactory().streamReadConstraints().getMaxNestingDepth()
					+ " levels of objects and arrays";
		}
		return "it is over a limit of the JSON parser: " + message;
	}

	private static Entry entry(String name, JsonNode node) {
		if (!node.isObject()) {
			throw InvalidFileException.unusable(name, "server '" + name + "' is not a JSON object");
		}
		JsonNode command = node.path("command");
		JsonNode cwd = node.path("cwd");
		String what = " of server '" + name + "'";
		Entry entry = new Entry(absent(command) ? null : string(name, command, "the command" + what), new ArrayList<>(),
				new LinkedHashMap<>(), absent(cwd) ? null : string(name, cwd, "the cwd" + what));
		// an absent or null args or env has no elements
		JsonNode args = node.path("args");
		if (!absent(args) && !args.isArray()) {
			throw InvalidFileException.unusable(name, "the args" + what + " are not an array");
		}
		args.forEach((arg) -> entry.args().add(string(name, arg, "an argument" + what)));
		JsonNode env = node.path("env");
		if (!absent(env) && !env.isObject()) {
			throw InvalidFileException.unusable(name, "the env" + what + " is not an object of names to strings");
		}
		env.properties()
			.forEach((variable) -> entry.env()
				.put(variable.getKey(), string(name, variable.getValue(), "env." + variable.getKey() + what)));
		return entry;
	}

	private static boolean absent(JsonNode node) {
		return node.isMissingNode() || node.isNull();
	}

	private static String string(String name, JsonNode value, String what) {
		if (!value.isString()) {
			throw InvalidFileException.unusable(name, what + " is not a string");
		}
		return value.asString();
	}

	/**
	 * One server of the file, as written.
	 *
	 * @param command the command
	 * @param args the arguments
	 * @param env the variables
	 * @param cwd the working directory
	 */
	record Entry(@Nullable String command, List<String> args, Map<String, String> env, @Nullable String cwd) {
	}

	/**
	 * The file is not a servers configuration; the message follows "the file X".
	 */
	static final class InvalidFileException extends RuntimeException {

		/**
		 * The server whose entry is at fault, {@code null} when the file as a whole is.
		 */
		final @Nullable String server;

		final String action;

		private InvalidFileException(@Nullable String server, String message, String action) {
			super(message);
			this.server = server;
			this.action = action;
		}

		static InvalidFileException missing() {
			return new InvalidFileException(null, "does not exist", "point it at an existing mcpServers JSON file"
					+ " (classpath:..., file:... or a path), or remove the property");
		}

		static InvalidFileException unreadable(String why) {
			return new InvalidFileException(null, "cannot be read" + (why.isEmpty() ? "" : ": " + why),
					"make it a readable mcpServers JSON file (a regular file), or remove the property");
		}

		static InvalidFileException unusable(@Nullable String server, String why) {
			return new InvalidFileException(server, "is unusable: " + why, "fix the file; " + FORMAT);
		}

	}

	/**
	 * A placeholder without a value.
	 */
	static final class UnresolvableException extends RuntimeException {

		/**
		 * The variable that has no value, {@code null} when the placeholder is malformed.
		 */
		final @Nullable String variable;

		UnresolvableException(@Nullable String variable) {
			super((variable != null) ? "the variable " + variable + " is not set" : "a placeholder is malformed");
			this.variable = variable;
		}

	}

}

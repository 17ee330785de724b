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

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.exc.UnexpectedEndOfInputException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.io.FileSystemResource;
import org.springframework.core.io.Resource;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.ResourceUtils;

/**
 * Reads a servers file in the common {@code mcpServers} JSON format:
 * {@code {"mcpServers": {"name": {"command": "...", "args": [...], "env": {...}, "cwd":
 * "..."}}}}. Its values are returned as written (placeholders unresolved), and no error
 * quotes its content: a value could be a secret.
 *
 * @author mcp-stdio authors
 */
final class ServersConfigurationFile {

	/** A larger file is not a servers configuration. */
	static final int MAX_SIZE = 4 * 1024 * 1024;

	private static final JsonMapper MAPPER = JsonMapper.shared();

	private ServersConfigurationFile() {
	}

	/**
	 * Find a file by its location: a {@code classpath:} or URL location as Spring
	 * resolves it, a plain path on the file system (else, as before, on the class path).
	 * @param location the location
	 * @param resourceLoader the application's resource loader
	 * @return the resource, which may not exist
	 */
	static Resource locate(String location, ResourceLoader resourceLoader) {
		if (location.startsWith(ResourceLoader.CLASSPATH_URL_PREFIX) || ResourceUtils.isUrl(location)) {
			return resourceLoader.getResource(location);
		}
		FileSystemResource file = new FileSystemResource(location);
		return file.exists() ? file : resourceLoader.getResource(location);
	}

	/**
	 * Read the servers of a file.
	 * @param resource the file
	 * @return the servers by name, in file order
	 * @throws InvalidFileException when the file cannot be read or is not of the format
	 */
	static Map<String, Entry> read(Resource resource) {
		JsonNode root;
		try (InputStream in = resource.getInputStream()) {
			byte[] bytes = in.readNBytes(MAX_SIZE + 1);
			if (bytes.length > MAX_SIZE) {
				throw new InvalidFileException("it is larger than 4 MB (" + MAX_SIZE + " bytes)");
			}
			root = MAPPER.readTree(bytes);
		}
		catch (IOException ex) {
			throw new InvalidFileException("it cannot be read (" + ex.getClass().getSimpleName() + ")");
		}
		catch (StreamConstraintsException ex) {
			throw new InvalidFileException(constraint(ex));
		}
		catch (JacksonException ex) {
			// Jackson's own message quotes the offending text
			throw new InvalidFileException("it is not valid JSON: " + describe(ex));
		}
		JsonNode servers = (root != null) ? root.get("mcpServers") : null;
		if (servers == null || !servers.isObject()) {
			throw new InvalidFileException("it has no \"mcpServers\" object at the top level");
		}
		Map<String, Entry> result = new LinkedHashMap<>();
		for (Map.Entry<String, JsonNode> entry : servers.properties()) {
			result.put(entry.getKey(), entry(entry.getKey(), entry.getValue()));
		}
		return result;
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
			throw new InvalidFileException("server '" + name + "' is not a JSON object");
		}
		String command = string(name, node, "command");
		String cwd = string(name, node, "cwd");
		List<String> args = new ArrayList<>();
		JsonNode argsNode = node.get("args");
		if (argsNode != null && !argsNode.isNull()) {
			if (!argsNode.isArray()) {
				throw new InvalidFileException("the args of server '" + name + "' are not an array");
			}
			for (JsonNode arg : argsNode) {
				if (!arg.isValueNode()) {
					throw new InvalidFileException("an argument of server '" + name + "' is not a string");
				}
				args.add(arg.asString());
			}
		}
		Map<String, String> env = new LinkedHashMap<>();
		JsonNode envNode = node.get("env");
		if (envNode != null && !envNode.isNull()) {
			if (!envNode.isObject()) {
				throw new InvalidFileException("the env of server '" + name + "' is not an object");
			}
			for (Map.Entry<String, JsonNode> variable : envNode.properties()) {
				if (!variable.getValue().isValueNode()) {
					throw new InvalidFileException(
							"env." + variable.getKey() + " of server '" + name + "' is not a string");
				}
				env.put(variable.getKey(), variable.getValue().asString());
			}
		}
		return new Entry(command, args, env, cwd);
	}

	private static @Nullable String string(String name, JsonNode node, String key) {
		JsonNode value = node.get(key);
		if (value == null || value.isNull()) {
			return null;
		}
		if (!value.isString()) {
			throw new InvalidFileException("the " + key + " of server '" + name + "' is not a string");
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
	 * The file is not a servers configuration.
	 */
	static final class InvalidFileException extends RuntimeException {

		InvalidFileException(String message) {
			super(message);
		}

	}

}

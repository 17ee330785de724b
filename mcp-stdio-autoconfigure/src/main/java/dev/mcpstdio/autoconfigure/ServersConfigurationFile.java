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
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.io.Resource;

/**
 * Reads a servers file in the common {@code mcpServers} JSON format:
 * {@code {"mcpServers": {"name": {"command": "...", "args": [...], "env": {...}}}}}.
 *
 * @author mcp-stdio authors
 */
final class ServersConfigurationFile {

	/** A larger file is not a servers configuration. */
	private static final int MAX_SIZE = 4 * 1024 * 1024;

	private ServersConfigurationFile() {
	}

	/**
	 * Read the servers of a file.
	 * @param resource the file
	 * @return the servers by name, in file order
	 * @throws InvalidFileException when the file cannot be read or is not of the format
	 */
	static Map<String, McpStdioProperties.Server> read(Resource resource) {
		JsonNode root;
		try (InputStream in = resource.getInputStream()) {
			byte[] bytes = in.readNBytes(MAX_SIZE + 1);
			if (bytes.length > MAX_SIZE) {
				throw new InvalidFileException("it is larger than " + MAX_SIZE + " bytes");
			}
			root = JsonMapper.shared().readTree(bytes);
		}
		catch (IOException ex) {
			throw new InvalidFileException("it cannot be read (" + ex.getMessage() + ")");
		}
		catch (JacksonException ex) {
			throw new InvalidFileException("it is not valid JSON (" + ex.getOriginalMessage() + ")");
		}
		JsonNode servers = (root != null) ? root.get("mcpServers") : null;
		if (servers == null || !servers.isObject()) {
			throw new InvalidFileException("it has no \"mcpServers\" object at the top level");
		}
		Map<String, McpStdioProperties.Server> result = new LinkedHashMap<>();
		for (Map.Entry<String, JsonNode> entry : servers.properties()) {
			result.put(entry.getKey(), server(entry.getKey(), entry.getValue()));
		}
		return result;
	}

	private static McpStdioProperties.Server server(String name, JsonNode node) {
		if (!node.isObject()) {
			throw new InvalidFileException("server '" + name + "' is not a JSON object");
		}
		McpStdioProperties.Server server = new McpStdioProperties.Server();
		JsonNode command = node.get("command");
		if (command != null && !command.isNull()) {
			if (!command.isString()) {
				throw new InvalidFileException("the command of server '" + name + "' is not a string");
			}
			server.setCommand(command.asString());
		}
		JsonNode args = node.get("args");
		if (args != null && !args.isNull()) {
			if (!args.isArray()) {
				throw new InvalidFileException("the args of server '" + name + "' are not an array");
			}
			List<String> values = new ArrayList<>();
			for (Iterator<JsonNode> it = args.iterator(); it.hasNext();) {
				JsonNode arg = it.next();
				if (!arg.isValueNode()) {
					throw new InvalidFileException("an argument of server '" + name + "' is not a string");
				}
				values.add(arg.asString());
			}
			server.setArgs(values);
		}
		JsonNode env = node.get("env");
		if (env != null && !env.isNull()) {
			if (!env.isObject()) {
				throw new InvalidFileException("the env of server '" + name + "' is not an object");
			}
			Map<String, String> values = new LinkedHashMap<>();
			for (Map.Entry<String, JsonNode> variable : env.properties()) {
				values.put(variable.getKey(), variable.getValue().asString());
			}
			server.setEnv(values);
		}
		return server;
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

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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BinaryOperator;
import java.util.function.Supplier;

import dev.mcpstdio.autoconfigure.config.McpStdioProperties.Server;
import dev.mcpstdio.core.secrets.SecretSanitizer;
import org.jspecify.annotations.Nullable;

import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;

/**
 * The reader of the servers of a servers file: its entries as configured servers, their
 * placeholders resolved against the environment, every error reported to the problems.
 *
 * @author mcp-stdio authors
 */
final class FileServers {

	private final Environment environment;

	private final ResourceLoader resourceLoader;

	private final Problems problems;

	/** Makes a server with the values of {@code defaults}. */
	private final Supplier<Server> newServer;

	/** The files read that are on the file system, to be watched. */
	private final Set<Path> files;

	FileServers(Environment environment, ResourceLoader resourceLoader, Problems problems, Supplier<Server> newServer,
			Set<Path> files) {
		this.environment = environment;
		this.resourceLoader = resourceLoader;
		this.problems = problems;
		this.newServer = newServer;
		this.files = files;
	}

	/**
	 * Read the servers of a file.
	 * @param location where the file is
	 * @param property the property that names it
	 * @return its servers, by name
	 */
	Map<String, Configured> read(String location, String property) {
		Map<String, ServersFile.Entry> entries;
		try {
			entries = ServersFile.read(location, this.resourceLoader, this.files::add);
		}
		catch (ServersFile.InvalidFileException ex) {
			this.problems.add((ex.server != null) ? ex.server : "(servers file)", property,
					"the file " + location + " " + ex.getMessage(), ex.action);
			return Map.of();
		}
		Map<String, Configured> servers = new LinkedHashMap<>();
		entries.forEach((name, entry) -> {
			Set<String> secrets = new LinkedHashSet<>();
			// resolves the placeholders of one value of the server
			BinaryOperator<@Nullable String> values = (key, value) -> placeholders(name, location, property, key, value,
					secrets);
			Server server = this.newServer.get();
			server.setCommand(values.apply("command", entry.command()));
			List<String> args = new ArrayList<>();
			entry.args().forEach((arg) -> args.add(values.apply("args[" + args.size() + "]", arg)));
			server.setArgs(args);
			entry.env()
				.forEach((variable, value) -> server.getEnv().put(variable, values.apply("env." + variable, value)));
			Set<String> keys = new TreeSet<>();
			if (entry.cwd() != null) {
				server.setWorkingDirectory(values.apply("cwd", entry.cwd()));
				keys.add("working-directory");
			}
			keys.addAll((server.getCommand() != null) ? List.of("command") : List.of());
			keys.addAll(args.isEmpty() ? List.of() : List.of("args"));
			keys.addAll(server.getEnv().isEmpty() ? List.of() : List.of("env"));
			servers.put(name, new Configured(name, server, ServersBinder.SERVERS + name + ".",
					location + " mcpServers." + name, keys, secrets));
		});
		return servers;
	}

	/**
	 * Resolve the placeholders of one value of a server of a file, reporting what cannot
	 * be; the values of those in a secret-looking {@code env} entry, and of variables
	 * whose names look secret, go to {@code secrets}.
	 */
	private @Nullable String placeholders(String name, String location, String property, String key,
			@Nullable String value, Set<String> secrets) {
		if (value == null) {
			return null;
		}
		boolean secretEntry = key.startsWith("env.") && SecretSanitizer.isSecretName(key.substring(4));
		try {
			return ServersFile.resolve(value, (variable) -> {
				String found = variable(variable);
				if (found != null && (secretEntry || SecretSanitizer.isSecretName(variable))) {
					secrets.add(found);
				}
				return found;
			});
		}
		catch (ServersFile.UnresolvableException ex) {
			String where = key + " of server '" + name + "' in " + location;
			String variable = ex.variable;
			if (variable != null) {
				this.problems.add(name, property, "the variable " + variable + " in " + where + " is not set",
						"set " + variable + " (an environment variable or a property), or give a default: ${" + variable
								+ ":-default}");
			}
			else {
				this.problems.add(name, property, "a placeholder in " + where + " is malformed",
						"write ${VAR} or ${VAR:-default}, and \\${ for a literal ${");
			}
			return value;
		}
	}

	private @Nullable String variable(String name) {
		try {
			return this.environment.getProperty(name);
		}
		catch (IllegalArgumentException ex) {
			// its value has a placeholder of its own that cannot be resolved
			return null;
		}
	}

}

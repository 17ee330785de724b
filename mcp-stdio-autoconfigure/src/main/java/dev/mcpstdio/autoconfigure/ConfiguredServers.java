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

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;

import dev.mcpstdio.autoconfigure.McpStdioProperties.Server;
import dev.mcpstdio.core.io.SecretValues;
import org.jspecify.annotations.Nullable;

import org.springframework.core.io.Resource;
import org.springframework.core.io.ResourceLoader;

/**
 * Gathers the configured servers from every place: {@code mcp.stdio.servers}, the
 * {@code mcp.stdio.servers-configuration} file and, when adopted, Spring AI's stdio
 * connections and servers file. A name Spring AI and mcp-stdio both configure is one
 * server, and a note for the log says which keys came from where.
 *
 * @author mcp-stdio authors
 */
final class ConfiguredServers {

	static final String SERVERS = McpStdioProperties.PREFIX + ".servers.";

	private static final String SERVERS_CONFIGURATION = McpStdioProperties.PREFIX + ".servers-configuration";

	private final ResourceLoader resourceLoader;

	private final Function<String, @Nullable String> variables;

	private final ProblemReport problems;

	private final Consumer<String> notes;

	/**
	 * Create an instance.
	 * @param resourceLoader finds the servers files
	 * @param variables the value of a placeholder's variable in a servers file
	 * @param problems where errors go
	 * @param notes where what is worth a line at INFO goes (what was adopted), once per
	 * start-up
	 */
	ConfiguredServers(ResourceLoader resourceLoader, Function<String, @Nullable String> variables,
			ProblemReport problems, Consumer<String> notes) {
		this.resourceLoader = resourceLoader;
		this.variables = variables;
		this.problems = problems;
		this.notes = notes;
	}

	/**
	 * Gather the servers.
	 * @param properties the bound {@code mcp.stdio} properties
	 * @param springAi Spring AI's stdio servers to adopt, or {@code null}
	 * @return the servers by name: mcp-stdio's in configuration order, then the adopted
	 */
	Map<String, ConfiguredServer> collect(McpStdioProperties properties, @Nullable SpringAiServers springAi) {
		Map<String, ConfiguredServer> servers = new LinkedHashMap<>();
		properties.getServers()
			.forEach((name, server) -> servers.put(name,
					new ConfiguredServer(name, server, SERVERS + name + ".", null, false, Set.of())));
		String location = properties.getServersConfiguration();
		if (location != null && !location.isBlank()) {
			readFile(location, SERVERS_CONFIGURATION, (name, server) -> {
				if (servers.containsKey(name)) {
					this.problems.add(name, SERVERS + name, "the server is configured both here and in " + location,
							"remove it from one of the two places: a name may appear only once");
				}
				else {
					servers.put(name, server);
				}
			});
		}
		if (springAi != null) {
			adopt(servers, springAi);
		}
		return servers;
	}

	private void adopt(Map<String, ConfiguredServer> servers, SpringAiServers springAi) {
		// Spring AI keeps these servers in hash maps, built in this sequence: their order
		// decides which of two same-named tools keeps its name, so it is kept
		Map<String, ConfiguredServer> fromFile = new HashMap<>();
		String location = springAi.serversConfiguration();
		if (location != null && !location.isBlank()) {
			readFile(location, SpringAiStdio.SERVERS_CONFIGURATION,
					(name, server) -> fromFile.put(name, server.adoptedFromSpringAi()));
		}
		Map<String, Connection> connections = new HashMap<>();
		connections.putAll(springAi.connections());
		Map<String, ConfiguredServer> adopted = new HashMap<>();
		adopted.putAll(fromFile);
		connections.forEach((name, connection) -> {
			String prefix = SpringAiStdio.CONNECTIONS + "." + name + ".";
			ConfiguredServer inFile = adopted.put(name,
					new ConfiguredServer(name, connection.toServer(), prefix, null, true, Set.of()));
			if (inFile != null) {
				this.notes.accept("MCP server '" + name + "' is configured both in " + inFile.origin() + " and under "
						+ SpringAiStdio.CONNECTIONS + "." + name
						+ ": the connection wins, as with Spring AI's own transport");
			}
		});
		adopted.forEach((name, server) -> {
			ConfiguredServer own = servers.get(name);
			if (own == null) {
				servers.put(name, server);
				this.notes.accept("Adopted MCP server '" + name + "' from " + server.origin()
						+ ": mcp-stdio runs it, Spring AI's stdio transport starts no process for it");
			}
			else {
				servers.put(name, merge(own, server));
			}
		});
	}

	/**
	 * Make one server of a name Spring AI and mcp-stdio both configure: Spring AI gives
	 * what mcp-stdio leaves unset (its command line), mcp-stdio's value wins where both
	 * set one.
	 */
	private ConfiguredServer merge(ConfiguredServer own, ConfiguredServer adopted) {
		Server server = own.server();
		Server from = adopted.server();
		List<String> ownKeys = new ArrayList<>(ServerKeys.values(server).keySet());
		List<String> taken = new ArrayList<>();
		List<String> won = new ArrayList<>();
		// with no command in either place, the error names Spring AI's property
		boolean ownCommand = server.getCommand() != null;
		String commandPrefix = ownCommand ? own.commandPrefix() : adopted.commandPrefix();
		String file = ownCommand ? own.file() : adopted.file();
		if (from.getCommand() != null) {
			if (server.getCommand() == null) {
				server.setCommand(from.getCommand());
				taken.add("command");
			}
			else {
				won.add("command");
			}
		}
		if (!from.getArgs().isEmpty()) {
			if (server.getArgs().isEmpty()) {
				server.setArgs(from.getArgs());
				taken.add("args");
			}
			else {
				won.add("args");
			}
		}
		Map<String, String> env = new LinkedHashMap<>(from.getEnv());
		from.getEnv()
			.keySet()
			.forEach((variable) -> (server.getEnv().containsKey(variable) ? won : taken).add("env." + variable));
		env.putAll(server.getEnv());
		server.setEnv(env);
		if (from.getWorkingDirectory() != null) {
			if (server.getWorkingDirectory() == null) {
				server.setWorkingDirectory(from.getWorkingDirectory());
				taken.add("working-directory");
			}
			else {
				won.add("working-directory");
			}
		}
		this.notes.accept("Adopted MCP server '" + own.name() + "' from " + adopted.origin() + " ("
				+ String.join(", ", taken) + ") together with " + own.origin() + " (" + String.join(", ", ownKeys)
				+ "): one server, one process"
				+ (won.isEmpty() ? "" : "; " + own.origin() + " wins for " + String.join(", ", won))
				+ "; Spring AI's stdio transport starts no process for it");
		Set<String> placeholderValues = new LinkedHashSet<>(own.placeholderValues());
		placeholderValues.addAll(adopted.placeholderValues());
		return new ConfiguredServer(own.name(), server, commandPrefix, file, true, placeholderValues);
	}

	private void readFile(String location, String property, BiConsumer<String, ConfiguredServer> sink) {
		Resource resource = ServersConfigurationFile.locate(location, this.resourceLoader);
		Map<String, ServersConfigurationFile.Entry> entries;
		try {
			entries = ServersConfigurationFile.read(resource, ServersConfigurationFile.READ_TIMEOUT);
		}
		catch (ServersConfigurationFile.InvalidFileException ex) {
			String server = ex.server();
			this.problems.add((server != null) ? server : "(servers file)", property,
					"the file " + location + " " + ex.getMessage(), ex.action());
			return;
		}
		entries.forEach((name, entry) -> {
			Set<String> secretValues = new LinkedHashSet<>();
			FileValues values = (key, value) -> resolve(name, location, property, key, value, secretValues);
			Server server = new Server();
			server.setCommand(values.resolve("command", entry.command()));
			List<String> args = new ArrayList<>();
			for (int i = 0; i < entry.args().size(); i++) {
				args.add(values.resolve("args[" + i + "]", entry.args().get(i)));
			}
			server.setArgs(args);
			Map<String, String> env = new LinkedHashMap<>();
			entry.env().forEach((variable, value) -> env.put(variable, values.resolve("env." + variable, value)));
			server.setEnv(env);
			server.setWorkingDirectory(values.resolve("cwd", entry.cwd()));
			sink.accept(name, new ConfiguredServer(name, server, SERVERS + name + ".", location + " mcpServers." + name,
					false, secretValues));
		});
	}

	/**
	 * Resolve the placeholders of one value of a server of a file, reporting what cannot
	 * be resolved.
	 * @param name the server
	 * @param location the file
	 * @param property the property that names the file
	 * @param key where the value is in the server's entry
	 * @param value the value
	 * @param secretValues where the values of placeholders that are secrets go: those in
	 * a secret-looking {@code env} entry, and those of variables whose names look secret
	 * @return the value resolved, or as it is when it cannot be
	 */
	private @Nullable String resolve(String name, String location, String property, String key, @Nullable String value,
			Set<String> secretValues) {
		if (value == null) {
			return null;
		}
		boolean secretEntry = key.startsWith("env.") && SecretValues.isSecretName(key.substring(4));
		try {
			return FilePlaceholders.resolve(value, (variable) -> {
				String found = this.variables.apply(variable);
				if (found != null && (secretEntry || SecretValues.isSecretName(variable))) {
					secretValues.add(found);
				}
				return found;
			});
		}
		catch (FilePlaceholders.UnresolvableException ex) {
			String where = key + " of server '" + name + "' in " + location;
			String variable = ex.variable();
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

	/** Resolves the placeholders of the values of one server of a file. */
	private interface FileValues {

		@Nullable String resolve(String key, @Nullable String value);

	}

	/**
	 * One configured server.
	 *
	 * @param name its name
	 * @param server its settings as configured, command line included
	 * @param commandPrefix the prefix of the property its command came from
	 * @param file where in a servers file its command line came from, or {@code null}
	 * @param adopted whether it was configured for Spring AI's stdio transport
	 * @param placeholderValues the values of placeholders of its servers file that are
	 * secrets (see {@link PlaceholderSecrets} for those of properties)
	 */
	record ConfiguredServer(String name, Server server, String commandPrefix, @Nullable String file, boolean adopted,
			Set<String> placeholderValues) {

		ConfiguredServer adoptedFromSpringAi() {
			return new ConfiguredServer(this.name, this.server, this.commandPrefix, this.file, true,
					this.placeholderValues);
		}

		/**
		 * Return where its command line was configured, for messages.
		 * @return a file and server, or a property prefix
		 */
		String origin() {
			return (this.file != null) ? this.file : this.commandPrefix.substring(0, this.commandPrefix.length() - 1);
		}

	}

	/**
	 * The stdio servers configured for Spring AI.
	 *
	 * @param connections {@code spring.ai.mcp.client.stdio.connections}
	 * @param serversConfiguration
	 * {@code spring.ai.mcp.client.stdio.servers-configuration}
	 */
	record SpringAiServers(Map<String, Connection> connections, @Nullable String serversConfiguration) {

	}

	/**
	 * One of Spring AI's stdio connections.
	 *
	 * @param command the command
	 * @param args its arguments
	 * @param env the variables added to its environment
	 */
	record Connection(@Nullable String command, @Nullable List<String> args, @Nullable Map<String, String> env) {

		Server toServer() {
			Server server = new Server();
			server.setCommand(this.command);
			server.setArgs((this.args != null) ? new ArrayList<>(this.args) : new ArrayList<>());
			server.setEnv((this.env != null) ? new LinkedHashMap<>(this.env) : new LinkedHashMap<>());
			return server;
		}

	}

}

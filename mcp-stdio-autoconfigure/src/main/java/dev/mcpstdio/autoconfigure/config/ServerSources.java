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

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.autoconfigure.config.McpStdioProperties.Server;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition;
import org.apache.commons.logging.Log;

import org.springframework.core.env.Environment;
import org.springframework.core.log.LogMessage;

/**
 * The sources of the configured servers, merged: {@code mcp.stdio.servers}, its servers
 * file, and, when adopted, Spring AI's stdio connections and servers file; a name that
 * two of them configure is one server.
 *
 * @author mcp-stdio authors
 */
final class ServerSources {

	private final Environment environment;

	private final ServersBinder binder;

	private final FileServers fileServers;

	private final Problems problems;

	private final Log log;

	/**
	 * The adopted servers that inherit the environment because nothing says otherwise.
	 */
	private final Set<String> inheriting = new HashSet<>();

	ServerSources(Environment environment, ServersBinder binder, FileServers fileServers, Problems problems, Log log) {
		this.environment = environment;
		this.binder = binder;
		this.fileServers = fileServers;
		this.problems = problems;
		this.log = log;
	}

	/**
	 * Gather the servers: {@code mcp.stdio.servers}, then its servers file, then, when
	 * adopted, Spring AI's.
	 * @param properties the bound properties
	 * @param adopting whether Spring AI's servers are adopted
	 * @param connections Spring AI's stdio connections
	 * @return the servers, by name
	 */
	Map<String, Configured> gather(McpStdioProperties properties, boolean adopting,
			Map<String, Connection> connections) {
		Map<String, Configured> servers = new LinkedHashMap<>();
		properties.getServers()
			.forEach((name, server) -> servers.put(name, new Configured(name, server,
					ServersBinder.SERVERS + name + ".", null, this.binder.keys(name), Set.of())));
		String location = properties.getServersConfiguration();
		if (location != null && !location.isBlank()) {
			this.fileServers.read(location, McpStdioProperties.PREFIX + ".servers-configuration")
				.forEach((name, server) -> {
					if (servers.putIfAbsent(name, server) != null) {
						this.problems.add(name, ServersBinder.SERVERS + name,
								"the server is configured both here and in " + location,
								"remove it from one of the two places: a name may appear only once");
					}
				});
		}
		if (adopting) {
			adopt(servers, connections);
		}
		return servers;
	}

	/**
	 * Say which adopted servers inherit the application's environment, and warn about a
	 * server configured twice while adoption is off.
	 * @param definitions the definitions
	 * @param notAdopted Spring AI's connections that are not adopted though its stdio
	 * transport is active
	 * @param properties the bound properties
	 */
	void report(List<McpStdioServerDefinition> definitions, Set<String> notAdopted, McpStdioProperties properties) {
		List<String> inheriting = definitions.stream()
			.filter((definition) -> definition.enabled() && this.inheriting.contains(definition.name()))
			.map(McpStdioServerDefinition::name)
			.toList();
		if (!inheriting.isEmpty()) {
			this.log.info(LogMessage.format("MCP servers adopted from spring.ai.mcp.client.stdio get the application's "
					+ "whole environment, as Spring AI's own stdio transport gave it: %s (set %s<name>.inherit-env=false "
					+ "to give one only the allow-list and its env)", String.join(", ", inheriting),
					ServersBinder.SERVERS));
		}
		for (String name : notAdopted) {
			if (this.problems.isEmpty() && properties.getServers().containsKey(name)) {
				this.log.warn(LogMessage.format("%s is configured both under mcp.stdio.servers and under %s with "
						+ "%s.adopt-spring-ai-stdio=false: two processes start and Spring AI sees the server twice. "
						+ "Remove one, or let mcp-stdio adopt Spring AI's servers", McpStdioException.describe(name),
						SpringAiStdio.CONNECTIONS, McpStdioProperties.PREFIX));
			}
		}
	}

	private void adopt(Map<String, Configured> servers, Map<String, Connection> connections) {
		// Spring AI keeps these servers in hash maps, built in this sequence: their order
		// decides which of two same-named tools keeps its name, so it is kept
		Map<String, Configured> adopted = new HashMap<>();
		String location = this.environment.getProperty(SpringAiStdio.SERVERS_CONFIGURATION);
		if (location != null && !location.isBlank()) {
			adopted.putAll(this.fileServers.read(location, SpringAiStdio.SERVERS_CONFIGURATION));
		}
		new HashMap<>(connections).forEach((name, connection) -> {
			Configured inFile = adopted.put(name, connection.toConfigured(name, this.binder.newServer()));
			if (inFile != null) {
				this.log.info(LogMessage.format(
						"%s is configured both in %s and under %s.%s: the connection wins, as with Spring AI's own "
								+ "transport",
						McpStdioException.describe(name), inFile.origin(), SpringAiStdio.CONNECTIONS, name));
			}
		});
		adopted.forEach((name, server) -> {
			Configured own = servers.get(name);
			if (own == null) {
				this.log.info(LogMessage.format(
						"Adopted %s from %s: mcp-stdio runs it, Spring AI's stdio transport starts no process for it",
						McpStdioException.describe(name), server.origin()));
			}
			Configured one = (own != null) ? merge(own, server) : server;
			// Spring AI's own transport gave it the whole environment
			if (!one.keys().contains("inherit-env") && !this.binder.defaultsKeys().contains("inherit-env")) {
				one.server().setInheritEnv(true);
				this.inheriting.add(name);
			}
			servers.put(name, one);
		});
	}

	/**
	 * Make one server of a name Spring AI and mcp-stdio both configure: Spring AI gives
	 * what mcp-stdio leaves unset (its command line), mcp-stdio's value wins where both
	 * set one.
	 */
	private Configured merge(Configured own, Configured adopted) {
		Server server = own.server();
		Server from = adopted.server();
		// with no command in either place, the error names Spring AI's property
		boolean ownCommand = server.getCommand() != null;
		List<String> taken = new ArrayList<>();
		List<String> won = new ArrayList<>();
		if (take("command", from.getCommand() != null, ownCommand, taken, won)) {
			server.setCommand(from.getCommand());
		}
		if (take("args", !from.getArgs().isEmpty(), !server.getArgs().isEmpty(), taken, won)) {
			server.setArgs(from.getArgs());
		}
		from.getEnv()
			.keySet()
			.forEach((variable) -> (server.getEnv().containsKey(variable) ? won : taken).add("env." + variable));
		Map<String, String> env = new LinkedHashMap<>(from.getEnv());
		env.putAll(server.getEnv());
		server.setEnv(env);
		if (take("working-directory", adopted.keys().contains("working-directory"),
				own.keys().contains("working-directory"), taken, won)) {
			server.setWorkingDirectory(from.getWorkingDirectory());
		}
		this.log.info(LogMessage.format(
				"Adopted %s from %s (%s) together with %s (%s): one server, one process%s; Spring AI's stdio "
						+ "transport starts no process for it",
				McpStdioException.describe(own.name()), adopted.origin(), String.join(", ", taken), own.origin(),
				String.join(", ", own.keys()),
				won.isEmpty() ? "" : "; " + own.origin() + " wins for " + String.join(", ", won)));
		Set<String> keys = new TreeSet<>(own.keys());
		keys.addAll(taken);
		Set<String> secrets = new LinkedHashSet<>(own.secrets());
		secrets.addAll(adopted.secrets());
		return new Configured(own.name(), server, ownCommand ? own.commandPrefix() : adopted.commandPrefix(),
				ownCommand ? own.file() : adopted.file(), keys, secrets);
	}

	private static boolean take(String key, boolean given, boolean set, List<String> taken, List<String> won) {
		if (given) {
			(set ? won : taken).add(key);
		}
		return given && !set;
	}

}

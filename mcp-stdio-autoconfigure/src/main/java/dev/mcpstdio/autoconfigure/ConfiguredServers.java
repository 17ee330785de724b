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

import java.beans.PropertyDescriptor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import dev.mcpstdio.McpStdioConfigurationException;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.autoconfigure.McpStdioProperties.Server;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.core.server.ShutdownTimeouts;
import dev.mcpstdio.core.containment.ContainerRun;
import dev.mcpstdio.core.containment.ContainerSettings;
import dev.mcpstdio.core.containment.Containment.SandboxSettings;
import dev.mcpstdio.core.tree.CommandLocator.CommandNotFoundException;
import dev.mcpstdio.core.tree.CommandLocator;
import dev.mcpstdio.core.secrets.SecretSanitizer;
import dev.mcpstdio.core.secrets.SecretValues;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition;
import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyCaching;
import org.springframework.boot.context.properties.source.ConfigurationPropertyCaching.CacheOverride;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.log.LogMessage;
import org.springframework.util.unit.DataSize;

/**
 * The servers configured for mcp-stdio, bound, checked and resolved once per start-up.
 *
 * @author mcp-stdio authors
 */
final class ConfiguredServers {

	static final String SERVERS = McpStdioProperties.PREFIX + ".servers.";

	static final ConfigurationPropertyName SERVERS_NAME = ConfigurationPropertyName
		.of(McpStdioProperties.PREFIX + ".servers");

	static final ConfigurationPropertyName DEFAULTS_NAME = ConfigurationPropertyName
		.of(McpStdioProperties.PREFIX + ".defaults");

	private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9 .+-]{1,24}");

	private final Environment environment;

	private final ResourceLoader resourceLoader;

	private final Log log;

	private final @Nullable ClassLoader classLoader;

	private final Problems problems = new Problems();

	/** The keys binding gave a value to, by server. */
	private final Map<String, Set<String>> serverKeys = new HashMap<>();

	/** The keys binding gave a value to under {@code defaults}. */
	private final Set<String> defaultsKeys = new TreeSet<>();

	final McpStdioProperties properties = new McpStdioProperties();

	/** Whether Spring AI's stdio servers are adopted. */
	final boolean adopting;

	private final Map<String, Set<String>> placeholderSecrets;

	private final ServerChecks checks;

	private final FileServers fileServers;

	private final ServerDefinitions serverDefinitions;

	private final Map<String, Connection> connections;

	/**
	 * The adopted servers that inherit the environment because nothing says otherwise.
	 */
	private final Set<String> inheriting = new HashSet<>();

	final List<McpStdioServerDefinition> definitions = new ArrayList<>();

	/**
	 * The servers files that were read and are files on the file system, to be watched.
	 */
	final Set<Path> files = new LinkedHashSet<>();

	/**
	 * Bind, check and resolve the configured servers, those of Spring AI adopted
	 * included.
	 * @param environment the environment
	 * @param resourceLoader loads a servers file
	 * @param classLoader tells whether Spring AI's stdio transport is there
	 * @param log where what was adopted goes (INFO), and what looks wrong (WARN)
	 * @throws McpStdioConfigurationException naming every error
	 */
	ConfiguredServers(Environment environment, ResourceLoader resourceLoader, @Nullable ClassLoader classLoader,
			Log log) {
		this.environment = environment;
		Binder binder = Binder.get(environment);
		this.resourceLoader = resourceLoader;
		this.log = log;
		this.classLoader = classLoader;
		bind(binder);
		boolean springAiStdio = SpringAiStdio.isActive(environment, classLoader);
		this.adopting = springAiStdio && this.properties.isAdoptSpringAiStdio();
		this.placeholderSecrets = PropertyNames.check(environment, this.adopting, this.problems.list());
		this.connections = binder.bind(SpringAiStdio.CONNECTIONS, Bindable.mapOf(String.class, Connection.class))
			.orElse(Map.of());
		this.fileServers = new FileServers(environment, resourceLoader, this.problems, this::newServer, this.files);
		this.checks = new ServerChecks(this.problems, classLoader, this.defaultsKeys);
		this.serverDefinitions = new ServerDefinitions(this.placeholderSecrets,
				this.properties.getResourceCheckInterval());
		this.checks.duration("(all servers)", McpStdioProperties.PREFIX + ".resource-check-interval",
				this.properties.getResourceCheckInterval(), ServerChecks.ONE_HOUR);
		collect().values().forEach(this::resolve);
		List<String> inheriting = this.definitions.stream()
			.filter((definition) -> definition.enabled() && this.inheriting.contains(definition.name()))
			.map(McpStdioServerDefinition::name)
			.toList();
		if (!inheriting.isEmpty()) {
			log.info(LogMessage.format("MCP servers adopted from spring.ai.mcp.client.stdio get the application's "
					+ "whole environment, as Spring AI's own stdio transport gave it: %s (set %s<name>.inherit-env=false "
					+ "to give one only the allow-list and its env)", String.join(", ", inheriting), SERVERS));
		}
		for (String name : (springAiStdio && !this.adopting) ? this.connections.keySet() : Set.<String>of()) {
			if (this.problems.isEmpty() && this.properties.getServers().containsKey(name)) {
				log.warn(LogMessage.format("%s is configured both under mcp.stdio.servers and under %s with "
						+ "%s.adopt-spring-ai-stdio=false: two processes start and Spring AI sees the server twice. "
						+ "Remove one, or let mcp-stdio adopt Spring AI's servers", McpStdioException.describe(name),
						SpringAiStdio.CONNECTIONS, McpStdioProperties.PREFIX));
			}
		}
		this.problems.throwIfAny();
	}

	/**
	 * Return whether Spring AI's stdio servers are adopted, without reading the servers:
	 * what is decided when the application is processed ahead of time.
	 * @param environment the environment
	 * @param classLoader tells whether Spring AI's stdio transport is there
	 * @return whether they are adopted
	 */
	static boolean adopting(Environment environment, @Nullable ClassLoader classLoader) {
		return SpringAiStdio.isActive(environment, classLoader) && Binder.get(environment)
			.bind(McpStdioProperties.PREFIX + ".adopt-spring-ai-stdio", Boolean.class)
			.orElse(true);
	}

	/**
	 * Bind, check and resolve the configuration again, as it is now.
	 * @param log where what was adopted goes (INFO), and what looks wrong (WARN)
	 * @return the servers
	 * @throws McpStdioConfigurationException naming every error
	 */
	ConfiguredServers readAgain(Log log) {
		return new ConfiguredServers(this.environment, this.resourceLoader, this.classLoader, log);
	}

	/**
	 * Bind {@code mcp.stdio} as Boot does (relaxed names, enums such as
	 * {@code on-failure}), each server starting from {@code defaults}, and report every
	 * value that cannot be converted instead of stopping at the first.
	 */
	private void bind(Binder binder) {
		ScopedBinders servers = new ScopedBinders(this.environment, SERVERS_NAME);
		BindHandler handler = new AbstractBindHandler() {

			@Override
			@SuppressWarnings("unchecked")
			public <T> @Nullable Bindable<T> onStart(ConfigurationPropertyName name, Bindable<T> target,
					BindContext context) {
				if (name.equals(SERVERS_NAME) && !servers.entries.isEmpty()) {
					// bound below, each server from its own names
					return null;
				}
				return (target.getType().resolve() == Server.class) ? target.withExistingValue((T) newServer())
						: target;
			}

			@Override
			public Object onSuccess(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
					Object result) {
				Class<?> type = target.getType().resolve(Object.class);
				if (type != McpStdioProperties.class && type.getEnclosingClass() != McpStdioProperties.class) {
					bound(name);
				}
				return result;
			}

			@Override
			public @Nullable Object onFailure(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
					Exception error) {
				unconvertible(name, target.getType().resolve(Object.class), context.getConfigurationProperty());
				// unbound: the default stands in, and binding goes on
				return null;
			}

		};
		binder.bind(McpStdioProperties.PREFIX, Bindable.ofInstance(this.properties), handler);
		// the environment's sources kept cached while binding, as one bind of them all
		// does
		try (CacheOverride caching = ConfigurationPropertyCaching.get(this.environment).override()) {
			servers.entries.forEach((key, entry) -> servers.binder(entry)
				.bind(entry, Bindable.of(Server.class), handler)
				.ifBound((server) -> this.properties.getServers().put(key, server)));
		}
	}

	/**
	 * Return a server with the values of {@code defaults}, for its own to override: a
	 * deep copy of them as bound (binding them again for each server took a tenth of the
	 * start-up of a thousand).
	 */
	private Server newServer() {
		return copy(this.properties.getDefaults(), new Server());
	}

	private static <T> T copy(Object from, T to) {
		BeanWrapper source = new BeanWrapperImpl(from);
		BeanWrapper target = new BeanWrapperImpl(to);
		for (PropertyDescriptor property : source.getPropertyDescriptors()) {
			String name = property.getName();
			Object value = source.isReadableProperty(name) ? source.getPropertyValue(name) : null;
			if (target.isWritableProperty(name)) {
				target.setPropertyValue(name, (value instanceof List<?> list) ? new ArrayList<>(list)
						: (value instanceof Map<?, ?> map) ? new LinkedHashMap<>(map) : value);
			}
			else if (value != null && value.getClass().getEnclosingClass() == McpStdioProperties.class) {
				copy(value, Objects.requireNonNull(target.getPropertyValue(name)));
			}
		}
		return to;
	}

	private void unconvertible(ConfigurationPropertyName name, Class<?> type,
			@Nullable ConfigurationProperty property) {
		// only typed keys fail to convert; still, a value is quoted only when it is a
		// short plain word, never what could be a secret pasted in the wrong place
		Object value = (property != null) ? property.getValue() : null;
		String shown = (value != null && PLAIN.matcher(value.toString()).matches()) ? "'" + value + "'" : "the value";
		String server = SERVERS_NAME.isAncestorOf(name)
				? name.getElement(SERVERS_NAME.getNumberOfElements(), Form.ORIGINAL)
				: DEFAULTS_NAME.isAncestorOf(name) ? "(defaults)" : "(all)";
		String expected = type.isEnum()
				? "one of " + Arrays.stream(type.getEnumConstants())
					.map((constant) -> ((Enum<?>) constant).name().toLowerCase(Locale.ROOT).replace('_', '-'))
					.collect(Collectors.joining(", "))
				: (type == Duration.class) ? "a duration such as 500ms, 2s or 1m"
						: (type == DataSize.class) ? "a size such as 512KB or 16MB"
								: (type == Integer.class || type == int.class) ? "a whole number"
										: (type == Boolean.class || type == boolean.class) ? "true or false"
												: "a " + type.getSimpleName();
		problem(server, PropertyNames.original(name), shown + " is not " + expected,
				(type.isEnum() ? "use " : "write ") + expected);
	}

	/**
	 * Gather the servers: {@code mcp.stdio.servers}, then its servers file, then, when
	 * adopted, Spring AI's; a name both configure is one server.
	 */
	private Map<String, Configured> collect() {
		Map<String, Configured> servers = new LinkedHashMap<>();
		this.properties.getServers()
			.forEach((name, server) -> servers.put(name, new Configured(name, server, SERVERS + name + ".", null,
					this.serverKeys.getOrDefault(name, Set.of()), Set.of())));
		String location = this.properties.getServersConfiguration();
		if (location != null && !location.isBlank()) {
			this.fileServers.read(location, McpStdioProperties.PREFIX + ".servers-configuration")
				.forEach((name, server) -> {
					if (servers.putIfAbsent(name, server) != null) {
						problem(name, SERVERS + name, "the server is configured both here and in " + location,
								"remove it from one of the two places: a name may appear only once");
					}
				});
		}
		if (this.adopting) {
			adopt(servers);
		}
		return servers;
	}

	private void adopt(Map<String, Configured> servers) {
		// Spring AI keeps these servers in hash maps, built in this sequence: their order
		// decides which of two same-named tools keeps its name, so it is kept
		Map<String, Configured> adopted = new HashMap<>();
		String location = this.environment.getProperty(SpringAiStdio.SERVERS_CONFIGURATION);
		if (location != null && !location.isBlank()) {
			adopted.putAll(this.fileServers.read(location, SpringAiStdio.SERVERS_CONFIGURATION));
		}
		new HashMap<>(this.connections).forEach((name, connection) -> {
			Configured inFile = adopted.put(name, connection.toConfigured(name, newServer()));
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
			if (!one.keys().contains("inherit-env") && !this.defaultsKeys.contains("inherit-env")) {
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

	/**
	 * Note a key binding gave a value to, such as {@code restart.policy}, and {@code env}
	 * or {@code args} as a whole: where a value comes from and which a server sets.
	 */
	private void bound(ConfigurationPropertyName bound) {
		boolean server = SERVERS_NAME.isAncestorOf(bound);
		int index = server ? SERVERS_NAME.getNumberOfElements() + 1 : DEFAULTS_NAME.getNumberOfElements();
		// an element of a list, such as sandbox.read-write[0], stands for the list (and
		// Boot's subName fails on some such names)
		ConfigurationPropertyName name = bound;
		while (name.getNumberOfElements() > index + 1 && name.isLastElementIndexed()) {
			name = name.getParent();
		}
		if ((server || DEFAULTS_NAME.isAncestorOf(name)) && name.getNumberOfElements() > index) {
			ConfigurationPropertyName key = name.subName(index);
			String first = key.getElement(0, Form.DASHED);
			(server ? this.serverKeys.computeIfAbsent(name.getElement(index - 1, Form.ORIGINAL),
					(serverName) -> new TreeSet<>()) : this.defaultsKeys)
				.add((first.equals("env") || first.equals("args")) ? first : key.toString());
		}
	}

	/**
	 * Check one server and add its definition, unless it has errors.
	 */
	private void resolve(Configured configured) {
		ServerChecks.Checked checked = this.checks.check(configured);
		if (checked != null) {
			this.definitions.add(this.serverDefinitions.definition(configured, checked));
		}
	}

	private void problem(String server, String property, String problem, String action) {
		this.problems.add(server, property, problem, action);
	}

	/**
	 * One configured server.
	 *
	 * @param name its name
	 * @param server its settings, those of {@code defaults} under its own
	 * @param commandPrefix the prefix of the property its command line came from
	 * @param file where in a servers file its command line came from, or {@code null}
	 * @param keys the keys set for it, not under {@code defaults}
	 * @param secrets the values of placeholders of its servers file that are secrets
	 */
	record Configured(String name, Server server, String commandPrefix, @Nullable String file, Set<String> keys,
			Set<String> secrets) {

		/** Where its command line was configured, for messages. */
		String origin() {
			return (this.file != null) ? this.file : this.commandPrefix.substring(0, this.commandPrefix.length() - 1);
		}

		String inFile() {
			return (this.file != null) ? " (in " + this.file + ")" : "";
		}

	}

	/**
	 * One of Spring AI's stdio connections.
	 *
	 * @param command the command
	 * @param args its arguments
	 * @param env the variables added to its environment
	 */
	record Connection(@Nullable String command, @Nullable List<String> args, @Nullable Map<String, String> env) {

		private Configured toConfigured(String name, Server server) {
			server.setCommand(this.command);
			server.setArgs((this.args != null) ? new ArrayList<>(this.args) : new ArrayList<>());
			server.setEnv((this.env != null) ? new LinkedHashMap<>(this.env) : new LinkedHashMap<>());
			return new Configured(name, server, SpringAiStdio.CONNECTIONS + "." + name + ".", null, Set.of(), Set.of());
		}

	}

}

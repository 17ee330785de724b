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
import java.nio.file.Files;
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
import java.util.function.BinaryOperator;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import dev.mcpstdio.autoconfigure.McpStdioConfigurationException.Problem;
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
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.Demand;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.Limits;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.PerUser;
import dev.mcpstdio.lifecycle.RestartPolicy;
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
import org.springframework.util.ClassUtils;
import org.springframework.util.unit.DataSize;

/**
 * The servers configured for mcp-stdio, bound, checked and resolved once per start-up.
 *
 * @author mcp-stdio authors
 */
final class ConfiguredServers {

	private static final String SERVERS = McpStdioProperties.PREFIX + ".servers.";

	private static final String DEFAULTS = McpStdioProperties.PREFIX + ".defaults.";

	static final ConfigurationPropertyName SERVERS_NAME = ConfigurationPropertyName
		.of(McpStdioProperties.PREFIX + ".servers");

	static final ConfigurationPropertyName DEFAULTS_NAME = ConfigurationPropertyName
		.of(McpStdioProperties.PREFIX + ".defaults");

	// a server's name is also a bean name, a metric tag, a logger category and a key
	private static final Pattern NAME = Pattern.compile("(?!.*\\.\\.)[a-zA-Z0-9](?:[a-zA-Z0-9._-]{0,62}[a-zA-Z0-9])?");

	private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9 .+-]{1,24}");

	private static final Duration TEN_MINUTES = Duration.ofMinutes(10);

	private static final Duration ONE_HOUR = Duration.ofHours(1);

	private final Environment environment;

	private final ResourceLoader resourceLoader;

	private final Log log;

	private final @Nullable ClassLoader classLoader;

	private final List<Problem> problems = new ArrayList<>();

	/** The keys binding gave a value to, by server. */
	private final Map<String, Set<String>> serverKeys = new HashMap<>();

	/** The keys binding gave a value to under {@code defaults}. */
	private final Set<String> defaultsKeys = new TreeSet<>();

	final McpStdioProperties properties = new McpStdioProperties();

	/** Whether Spring AI's stdio servers are adopted. */
	final boolean adopting;

	private final Map<String, Set<String>> placeholderSecrets;

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
		this.placeholderSecrets = PropertyNames.check(environment, this.adopting, this.problems);
		this.connections = binder.bind(SpringAiStdio.CONNECTIONS, Bindable.mapOf(String.class, Connection.class))
			.orElse(Map.of());
		duration("(all servers)", McpStdioProperties.PREFIX + ".resource-check-interval",
				this.properties.getResourceCheckInterval(), ONE_HOUR);
		collect().values().forEach(this::resolve);
		List<String> inheriting = this.definitions.stream()
			.filter((definition) -> definition.enabled() && this.inheriting.contains(definition.name()))
			.map(McpStdioServerDefinition::name)
			.toList();
		if (!inheriting.isEmpty()) {
			log.info("MCP servers adopted from spring.ai.mcp.client.stdio get the application's whole environment, as "
					+ "Spring AI's own stdio transport gave it: " + String.join(", ", inheriting) + " (set " + SERVERS
					+ "<name>.inherit-env=false to give one only the allow-list and its env)");
		}
		for (String name : (springAiStdio && !this.adopting) ? this.connections.keySet() : Set.<String>of()) {
			if (this.problems.isEmpty() && this.properties.getServers().containsKey(name)) {
				log.warn("MCP server '" + name + "' is configured both under mcp.stdio.servers and under "
						+ SpringAiStdio.CONNECTIONS + " with " + McpStdioProperties.PREFIX
						+ ".adopt-spring-ai-stdio=false: two processes start and Spring AI sees the server twice. "
						+ "Remove one, or let mcp-stdio adopt Spring AI's servers");
			}
		}
		if (!this.problems.isEmpty()) {
			throw new McpStdioConfigurationException(this.problems);
		}
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
			readFile(location, McpStdioProperties.PREFIX + ".servers-configuration").forEach((name, server) -> {
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
			adopted.putAll(readFile(location, SpringAiStdio.SERVERS_CONFIGURATION));
		}
		new HashMap<>(this.connections).forEach((name, connection) -> {
			Configured inFile = adopted.put(name, connection.toConfigured(name, newServer()));
			if (inFile != null) {
				this.log.info("MCP server '" + name + "' is configured both in " + inFile.origin() + " and under "
						+ SpringAiStdio.CONNECTIONS + "." + name
						+ ": the connection wins, as with Spring AI's own transport");
			}
		});
		adopted.forEach((name, server) -> {
			Configured own = servers.get(name);
			if (own == null) {
				this.log.info("Adopted MCP server '" + name + "' from " + server.origin()
						+ ": mcp-stdio runs it, Spring AI's stdio transport starts no process for it");
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
		this.log.info("Adopted MCP server '" + own.name() + "' from " + adopted.origin() + " ("
				+ String.join(", ", taken) + ") together with " + own.origin() + " (" + String.join(", ", own.keys())
				+ "): one server, one process"
				+ (won.isEmpty() ? "" : "; " + own.origin() + " wins for " + String.join(", ", won))
				+ "; Spring AI's stdio transport starts no process for it");
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

	private Map<String, Configured> readFile(String location, String property) {
		Path path = ServersFile.path(location, this.resourceLoader);
		if (path != null) {
			this.files.add(path);
		}
		Map<String, ServersFile.Entry> entries;
		try {
			entries = ServersFile.read(location, this.resourceLoader);
		}
		catch (ServersFile.InvalidFileException ex) {
			problem((ex.server != null) ? ex.server : "(servers file)", property,
					"the file " + location + " " + ex.getMessage(), ex.action);
			return Map.of();
		}
		Map<String, Configured> servers = new LinkedHashMap<>();
		entries.forEach((name, entry) -> {
			Set<String> secrets = new LinkedHashSet<>();
			// resolves the placeholders of one value of the server
			BinaryOperator<@Nullable String> values = (key, value) -> placeholders(name, location, property, key, value,
					secrets);
			Server server = newServer();
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
			servers.put(name, new Configured(name, server, SERVERS + name + ".", location + " mcpServers." + name, keys,
					secrets));
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
				problem(name, property, "the variable " + variable + " in " + where + " is not set", "set " + variable
						+ " (an environment variable or a property), or give a default: ${" + variable + ":-default}");
			}
			else {
				problem(name, property, "a placeholder in " + where + " is malformed",
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
		int before = this.problems.size();
		Server server = configured.server();
		checkNames(configured);
		checkBounds(configured);
		Path directory = workingDirectory(configured);
		SandboxSettings sandbox = sandbox(configured);
		String command = command(configured, directory);
		if (command == null || this.problems.size() > before) {
			return;
		}
		// the one place that builds a spec and a definition, from values checked above
		StdioServerSpec spec = spec(configured, command, directory, sandbox);
		McpStdioProperties.Restart restart = server.getRestart();
		RestartPolicy policy = new RestartPolicy(restart.getPolicy(), restart.getMaxRestarts(), restart.getWindow(),
				restart.getInitialBackoff(), restart.getMaxBackoff());
		PerUser perUser = (server.getInstances() == McpStdioProperties.Instances.SHARED) ? null
				: new PerUser(server.getMaxInstances(), server.getInstanceWait(), server.getUserEnv());
		Duration idleTimeout = (server.getIdleTimeout() != null) ? server.getIdleTimeout()
				: (perUser != null) ? TEN_MINUTES : null;
		DataSize maxMemory = server.getMaxMemory();
		Limits limits = new Limits((maxMemory != null) ? maxMemory.toBytes() : null, server.getMaxProcesses(),
				this.properties.getResourceCheckInterval());
		this.definitions.add(new McpStdioServerDefinition(spec, server.isEnabled(), server.isRequired(), policy,
				new Demand(server.getStart(), idleTimeout, perUser), limits));
	}

	/** Build the spec of a server from its values, checked already. */
	private StdioServerSpec spec(Configured configured, String command, @Nullable Path directory,
			SandboxSettings sandbox) {
		String name = configured.name();
		Server server = configured.server();
		McpStdioProperties.Shutdown shutdown = server.getShutdown();
		McpStdioProperties.Container container = server.getContainer();
		// masked in the server's output besides its secret-looking env entries: the
		// placeholders that are secrets and, when it inherits the environment, the
		// application's secret-looking variables (it may print them)
		SecretValues secrets = SecretValues.of(configured.secrets())
			.and(SecretValues.of(this.placeholderSecrets.getOrDefault(name, Set.of())));
		return StdioServerSpec.builder(name, command)
			.args(server.getArgs())
			.env(server.getEnv())
			.inheritEnv(server.isInheritEnv())
			.workingDirectory(directory)
			.maxMessageSize((int) server.getMaxMessageSize().toBytes())
			.stderrTailLines(server.getStderrTailLines())
			.sendTimeout(server.getSendTimeout())
			.startupTimeout(server.getStartupTimeout())
			.shutdown(new ShutdownTimeouts(shutdown.getDrainTimeout(), shutdown.getStdinCloseTimeout(),
					shutdown.getTerminateTimeout()))
			.container(new ContainerSettings(container.isEnabled(), container.getEngineCommand(), container.isInit(),
					container.getEngineTimeout()))
			.sandbox(sandbox)
			.secrets(server.isInheritEnv() ? secrets.and(SecretValues.ofSecretNamed(System.getenv())) : secrets)
			.origin((configured.file() != null) ? StdioServerSpec.Origin.file(name, configured.file())
					: StdioServerSpec.Origin.property(name, configured.commandPrefix() + "env"))
			.build();
	}

	/**
	 * Check a server's values against their bounds (a value beyond them is a unit typed
	 * wrong, and some would overflow or leave a server stuck), and its per-user settings.
	 */
	private void checkBounds(Configured configured) {
		Server server = configured.server();
		duration(configured, "startup-timeout", server.getStartupTimeout(), ONE_HOUR);
		duration(configured, "send-timeout", server.getSendTimeout(), ONE_HOUR);
		// a message is held in memory whole, and so is the stderr tail of every server
		DataSize maxMessageSize = server.getMaxMessageSize();
		check(configured, "max-message-size",
				maxMessageSize.toBytes() > 0 && maxMessageSize.compareTo(DataSize.ofMegabytes(256)) <= 0,
				"must be between 1B and 256MB, was " + maxMessageSize, "set a size such as 16MB");
		count(configured, "stderr-tail-lines", server.getStderrTailLines(), 0, 10_000, "set a small count such as 50");
		// each step at most 10m: a stop should fit in a shutdown phase
		McpStdioProperties.Shutdown shutdown = server.getShutdown();
		duration(configured, "shutdown.drain-timeout", shutdown.getDrainTimeout(), TEN_MINUTES);
		duration(configured, "shutdown.stdin-close-timeout", shutdown.getStdinCloseTimeout(), TEN_MINUTES);
		duration(configured, "shutdown.terminate-timeout", shutdown.getTerminateTimeout(), TEN_MINUTES);
		McpStdioProperties.Restart restart = server.getRestart();
		count(configured, "restart.max-restarts", restart.getMaxRestarts(), 0, 1000, "set a small count such as 5");
		duration(configured, "restart.window", restart.getWindow(), Duration.ofDays(1));
		duration(configured, "restart.initial-backoff", restart.getInitialBackoff(), ONE_HOUR);
		duration(configured, "restart.max-backoff", restart.getMaxBackoff(), ONE_HOUR);
		duration(configured, "container.engine-timeout", server.getContainer().getEngineTimeout(), TEN_MINUTES);
		checkPerUser(configured);
		if (server.getIdleTimeout() != null) {
			duration(configured, "idle-timeout", server.getIdleTimeout(), Duration.ofDays(7));
		}
		DataSize maxMemory = server.getMaxMemory();
		check(configured, "max-memory", maxMemory == null || maxMemory.toBytes() > 0,
				"must be positive, was " + maxMemory, "set a size such as 512MB, or remove it for no limit");
		Integer maxProcesses = server.getMaxProcesses();
		check(configured, "max-processes", maxProcesses == null || maxProcesses >= 1,
				"must be at least 1, was " + maxProcesses, "set a count such as 64, or remove it for no limit");
	}

	/**
	 * Check the instances of a per-user server, and that a shared one has no
	 * {@code user-env}: Spring Security tells who calls, its OAuth2 client gives the
	 * tokens.
	 */
	private void checkPerUser(Configured configured) {
		Server server = configured.server();
		String name = configured.name();
		if (server.getInstances() == McpStdioProperties.Instances.SHARED) {
			// user-env is no key of defaults: the server's own
			check(configured, "user-env", server.getUserEnv().isEmpty(),
					"is set for a shared server, whose one process would get the values of whichever user came first",
					"set " + SERVERS + name + ".instances=per-user");
			return;
		}
		check(configured, "instances",
				ClassUtils.isPresent("org.springframework.security.core.context.SecurityContextHolder",
						this.classLoader),
				"per-user needs Spring Security to tell who calls", "add spring-boot-starter-security");
		count(configured, "max-instances", server.getMaxInstances(), 1, 10_000, "set a count such as 50");
		duration(configured, "instance-wait", server.getInstanceWait(), TEN_MINUTES);
		server.getUserEnv().forEach((variable, value) -> {
			if (value.startsWith("oauth2:")
					&& !ClassUtils.isPresent("org.springframework.security.oauth2.client.OAuth2AuthorizedClientService",
							this.classLoader)) {
				problem(name, SERVERS + name + ".user-env." + variable,
						value + " needs Spring Security's OAuth2 client",
						"add spring-boot-starter-security-oauth2-client");
			}
		});
	}

	/**
	 * A name is also a bean name, a metric tag and a logger category; an operating system
	 * takes no variable whose name is empty or holds '=' or NUL: the start would fail.
	 */
	private void checkNames(Configured configured) {
		String name = configured.name();
		if (!NAME.matcher(name).matches()) {
			problem(name, SERVERS + name,
					"the name must be 1 to 64 letters, digits, '.', '_' or '-', begin and end with a letter or digit, "
							+ "and have no '..'" + configured.inFile(),
					"rename the server: its name is also a bean name, a metric tag and a logger category");
		}
		Set<String> variables = new LinkedHashSet<>(configured.server().getEnv().keySet());
		variables.addAll(configured.server().getUserEnv().keySet());
		for (String variable : variables) {
			if (variable.isEmpty() || variable.indexOf('=') >= 0 || variable.indexOf('\0') >= 0) {
				problem(name, configured.commandPrefix() + "env[" + variable + "]",
						"'" + variable + "' cannot name an environment variable: a name is not empty and holds no '=' "
								+ "or NUL" + configured.inFile(),
						"rename the variable");
			}
		}
	}

	/**
	 * Return the command, checked (with the container it runs) when the server is
	 * enabled, or {@code null} when none is set.
	 */
	private @Nullable String command(Configured configured, @Nullable Path directory) {
		String command = configured.server().getCommand();
		String property = configured.commandPrefix() + "command";
		if (command == null || command.isBlank()) {
			problem(configured.name(), property, "no command is set" + configured.inFile(),
					"set the executable to run, such as npx, uvx or java");
		}
		else if (configured.server().isEnabled()
				&& this.problems.stream().noneMatch((problem) -> problem.property().equals(property))) {
			String path = configured.server().getEnv().get("PATH");
			try {
				CommandLocator.locate(command, (path != null) ? path : System.getenv("PATH"), directory);
			}
			catch (CommandNotFoundException ex) {
				problem(configured.name(), property, ex.getMessage() + configured.inFile(),
						"install it, use its absolute path, or add its directory to PATH");
			}
			checkContainer(configured, command, directory);
		}
		return command;
	}

	private @Nullable Path workingDirectory(Configured configured) {
		String workingDirectory = configured.server().getWorkingDirectory();
		if (workingDirectory == null) {
			return null;
		}
		Path directory = Path.of(workingDirectory);
		String inFile = configured.keys().contains("working-directory") ? configured.inFile() : "";
		check(configured, "working-directory", Files.isDirectory(directory),
				"the directory " + workingDirectory + " does not exist" + inFile,
				"create it or point working-directory at an existing directory");
		return directory;
	}

	/**
	 * Return the sandbox settings: a sandboxed server's paths must exist, and a container
	 * is sandboxed by its engine's options instead.
	 */
	private SandboxSettings sandbox(Configured configured) {
		McpStdioProperties.Sandbox sandbox = configured.server().getSandbox();
		boolean check = sandbox.isEnabled() && configured.server().isEnabled();
		String command = configured.server().getCommand();
		boolean containerRun;
		try {
			containerRun = command != null && ContainerRun.recognise(command, configured.server().getArgs()) != null;
		}
		catch (ContainerRun.InvalidCommandException ex) {
			containerRun = true;
		}
		check(configured, "sandbox.enabled", !(check && containerRun),
				"a docker run or podman run server runs in its container, which bubblewrap does not sandbox",
				"turn the sandbox off for it and use the engine's own options: --read-only, --network none, "
						+ "--cap-drop ALL, --security-opt no-new-privileges, -v for what it may write");
		return new SandboxSettings(sandbox.isEnabled(), sandbox.getNetwork(),
				paths(configured, "sandbox.read-write", sandbox.getReadWrite(), check),
				paths(configured, "sandbox.read-only", sandbox.getReadOnly(), check));
	}

	private List<Path> paths(Configured configured, String key, List<String> values, boolean check) {
		List<Path> paths = new ArrayList<>();
		for (String value : values) {
			Path path = Path.of(value);
			String property = source(configured, key) + "[" + paths.size() + "]";
			if (check && !path.isAbsolute()) {
				problem(configured.name(), property, "the path " + value + " is not absolute",
						"write its absolute path");
			}
			else if (check && !Files.exists(path)) {
				problem(configured.name(), property, "the path " + value + " does not exist",
						"create it, or remove it from " + key);
			}
			paths.add(path);
		}
		return paths;
	}

	/**
	 * A docker run or podman run that cannot serve MCP over stdio (-t, -d, no -i) is
	 * refused naming the argument; an engine command of its own must exist.
	 */
	private void checkContainer(Configured configured, String command, @Nullable Path directory) {
		McpStdioProperties.Container container = configured.server().getContainer();
		if (!container.isEnabled()) {
			return;
		}
		ContainerRun run;
		try {
			run = ContainerRun.recognise(command, configured.server().getArgs());
		}
		catch (ContainerRun.InvalidCommandException ex) {
			String argument = (ex.argIndex() >= 0) ? "args[" + ex.argIndex() + "]" : "args";
			problem(configured.name(), configured.commandPrefix() + argument, ex.getMessage() + configured.inFile(),
					"change the container's arguments as described, or set " + SERVERS + configured.name()
							+ ".container.enabled=false to run the command as given (its container is then ended only "
							+ "through its process tree)");
			return;
		}
		String engineCommand = container.getEngineCommand();
		if (run != null && engineCommand != null && !engineCommand.isBlank()) {
			try {
				CommandLocator.locate(engineCommand, System.getenv("PATH"), directory);
			}
			catch (CommandNotFoundException ex) {
				problem(configured.name(), source(configured, "container.engine-command"), ex.getMessage(),
						"install it, use its absolute path, or remove the property to use the server's command");
			}
		}
	}

	private void duration(Configured configured, String key, Duration value, Duration max) {
		duration(configured.name(), source(configured, key), value, max);
	}

	private void duration(String server, String property, Duration value, Duration max) {
		if (value.isNegative() || value.isZero()) {
			problem(server, property, "must be positive, was " + value, "set a positive duration such as 2s");
		}
		else if (value.compareTo(max) > 0) {
			problem(server, property, "must be at most " + format(max) + ", was " + format(value),
					"set a duration up to " + format(max));
		}
	}

	private void count(Configured configured, String key, int value, int min, int max, String action) {
		check(configured, key, value >= min && value <= max,
				"must be between " + min + " and " + max + ", was " + value, action);
	}

	/**
	 * Report the value of a server's key unless it is valid.
	 */
	private void check(Configured configured, String key, boolean valid, String problem, String action) {
		if (!valid) {
			problem(configured.name(), source(configured, key), problem, action);
		}
	}

	/**
	 * Return the full name of the property a value came from: the server's own, else the
	 * one under {@code defaults} that it inherited, so that an error points where to fix
	 * it.
	 */
	private String source(Configured configured, String key) {
		boolean inherited = !configured.keys().contains(key) && this.defaultsKeys.contains(key);
		return (inherited ? DEFAULTS : SERVERS + configured.name() + ".") + key;
	}

	private void problem(String server, String property, String problem, String action) {
		this.problems.add(new Problem(server, property, problem, action));
	}

	/**
	 * Return a duration the way it is configured, such as {@code 10m} or {@code 500ms}.
	 */
	private static String format(Duration duration) {
		if (duration.isNegative() || duration.isZero() || duration.getNano() % 1_000_000 != 0) {
			return duration.toString();
		}
		if (duration.getNano() != 0) {
			return (duration.getSeconds() < 1_000_000_000L) ? duration.toMillis() + "ms" : duration.toString();
		}
		long seconds = duration.getSeconds();
		return (seconds % 86_400 == 0) ? (seconds / 86_400) + "d" : (seconds % 3600 == 0) ? (seconds / 3600) + "h"
				: (seconds % 60 == 0) ? (seconds / 60) + "m" : seconds + "s";
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
	private record Configured(String name, Server server, String commandPrefix, @Nullable String file, Set<String> keys,
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

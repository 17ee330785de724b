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

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.mcpstdio.core.containment.Containment.SandboxSettings.Network;
import dev.mcpstdio.lifecycle.RestartPolicy;
import dev.mcpstdio.lifecycle.StartMode;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.util.unit.DataSize;

/**
 * Configuration of the stdio MCP servers that mcp-stdio runs.
 *
 * @author mcp-stdio authors
 */
@ConfigurationProperties(McpStdioProperties.PREFIX)
public class McpStdioProperties {

	/** The prefix of every property. */
	public static final String PREFIX = "mcp.stdio";

	/**
	 * Whether mcp-stdio starts and manages the configured MCP servers.
	 */
	private boolean enabled = true;

	/**
	 * Guard against orphans: no server outlives a killed JVM.
	 */
	private final OrphanGuard orphanGuard = new OrphanGuard();

	/**
	 * Whether servers configured for Spring AI's stdio transport (under
	 * spring.ai.mcp.client.stdio) run as mcp-stdio servers of the same name, Spring AI's
	 * own stdio transport then starting none.
	 */
	private boolean adoptSpringAiStdio = true;

	/**
	 * Containment of servers in cgroups.
	 */
	private final Cgroup cgroup = new Cgroup();

	/**
	 * Reloads of the server set while the application runs.
	 */
	private final Reload reload = new Reload();

	/**
	 * Per-request telemetry.
	 */
	private final Observations observations = new Observations();

	/**
	 * A JSON file in the common "mcpServers" format (as used by Claude Desktop and Spring
	 * AI) whose servers are added to those configured here: classpath:..., file:... or a
	 * plain file-system path. Only a regular file of at most 4 MB, read within 10 s.
	 */
	private @Nullable String serversConfiguration;

	/**
	 * How often the max-memory and max-processes of every server are checked.
	 */
	private Duration resourceCheckInterval = Duration.ofSeconds(5);

	/**
	 * Settings that every server gets unless it sets its own.
	 */
	@NestedConfigurationProperty
	private final ServerSettings defaults = new ServerSettings();

	/**
	 * The servers, by name (1-64 letters, digits, '.', '_' or '-'; a name with a dot is
	 * written in brackets: mcp.stdio.servers[my.server].command). Each takes command,
	 * args, env and every key of defaults, whose value it overrides.
	 */
	private final Map<String, Server> servers = new LinkedHashMap<>();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public OrphanGuard getOrphanGuard() {
		return this.orphanGuard;
	}

	public boolean isAdoptSpringAiStdio() {
		return this.adoptSpringAiStdio;
	}

	public void setAdoptSpringAiStdio(boolean adoptSpringAiStdio) {
		this.adoptSpringAiStdio = adoptSpringAiStdio;
	}

	public Reload getReload() {
		return this.reload;
	}

	public Cgroup getCgroup() {
		return this.cgroup;
	}

	public Observations getObservations() {
		return this.observations;
	}

	public @Nullable String getServersConfiguration() {
		return this.serversConfiguration;
	}

	public void setServersConfiguration(@Nullable String serversConfiguration) {
		this.serversConfiguration = serversConfiguration;
	}

	public Duration getResourceCheckInterval() {
		return this.resourceCheckInterval;
	}

	public void setResourceCheckInterval(Duration resourceCheckInterval) {
		this.resourceCheckInterval = resourceCheckInterval;
	}

	public ServerSettings getDefaults() {
		return this.defaults;
	}

	public Map<String, Server> getServers() {
		return this.servers;
	}

	/**
	 * The orphan guard.
	 */
	public static class OrphanGuard {

		/**
		 * Whether a watcher ends every server's processes when the JVM dies in any way,
		 * where the OS supports it (Linux and macOS).
		 */
		private boolean enabled = true;

		/**
		 * Whose leftovers the start-up sweep ends: those of this application (named by
		 * spring.application.name, else by its main class and working directory), or
		 * those of every application of this user.
		 */
		private SweepScope sweepScope = SweepScope.APPLICATION;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public SweepScope getSweepScope() {
			return this.sweepScope;
		}

		public void setSweepScope(SweepScope sweepScope) {
			this.sweepScope = sweepScope;
		}

		/**
		 * Whose leftovers the start-up sweep ends.
		 */
		public enum SweepScope {

			/**
			 * The processes left by dead JVMs of this application only.
			 */
			APPLICATION,

			/**
			 * The processes left by dead JVMs of every application of this user.
			 */
			USER

		}

	}

	/**
	 * Reloading the servers while the application runs.
	 */
	public static class Reload {

		/**
		 * Whether a change of a servers file on the file system, or an
		 * EnvironmentChangeEvent touching mcp.stdio. or spring.ai.mcp.client.stdio. keys,
		 * reloads the servers (the endpoint's reload action works either way).
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	public static class Cgroup {

		/**
		 * Whether each server runs in its own cgroup where this JVM may write the cgroup
		 * v2 hierarchy (root, or a subtree delegated by systemd), so that a stop ends
		 * every process it started, daemons that left its session and cleared their
		 * environment included.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * Per-request telemetry, after the OpenTelemetry MCP semantic conventions.
	 */
	public static class Observations {

		/**
		 * Whether every request sent to a server is observed (the
		 * mcp.client.operation.duration observation, and a client span whose trace
		 * context goes into the request's params._meta when a tracer is present), where
		 * Micrometer's ObservationRegistry is available.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * Settings of a server that {@code defaults} can give to all.
	 */
	public static class ServerSettings {

		/**
		 * Whether the server is started.
		 */
		private boolean enabled = true;

		/**
		 * Whether start-up fails when this server cannot start.
		 */
		private boolean required;

		/**
		 * Whether the server gets the application's whole environment instead of a safe
		 * allow-list (HOME, LOGNAME, PATH, SHELL, TERM, USER, LANG, LC_*, TMPDIR). A
		 * server adopted from spring.ai.mcp.client.stdio inherits it unless this is set
		 * for it or under defaults.
		 */
		private boolean inheritEnv;

		/**
		 * The working directory of the server. Default: the application's.
		 */
		private @Nullable String workingDirectory;

		/**
		 * How long process start and the MCP initialize handshake may take.
		 */
		private Duration startupTimeout = Duration.ofSeconds(30);

		/**
		 * The longest stdout line (one JSON-RPC message) accepted; a longer one is a
		 * protocol error.
		 */
		private DataSize maxMessageSize = DataSize.ofMegabytes(16);

		/**
		 * How many of the last stderr lines are kept for errors and the endpoint.
		 */
		private int stderrTailLines = 50;

		/**
		 * How long a send may wait for the server to read its stdin; a server that keeps
		 * a write blocked that long is treated as failed and ended.
		 */
		private Duration sendTimeout = Duration.ofSeconds(30);

		/**
		 * The bounds of the shutdown steps.
		 */
		private final Shutdown shutdown = new Shutdown();

		/**
		 * The restart policy.
		 */
		private final Restart restart = new Restart();

		/**
		 * How a docker run or podman run command is run and ended.
		 */
		private final Container container = new Container();

		/**
		 * Whether and how the server runs in a bubblewrap sandbox.
		 */
		private final Sandbox sandbox = new Sandbox();

		/**
		 * When the process is first started: eager (with the application) or lazy (by the
		 * server's first message; until then it is IDLE, with no process).
		 */
		private StartMode start = StartMode.EAGER;

		/**
		 * The idle-timeout of a per-user server that sets none: its instances are stopped
		 * after 10 minutes without a request.
		 */
		public static final Duration PER_USER_IDLE_TIMEOUT = Duration.ofMinutes(10);

		/**
		 * How long the server may go with no request pending and none sent before it is
		 * stopped (state IDLE, exit cause IDLE); its next message starts it again.
		 * Default: none, never stopped for being idle.
		 */
		private @Nullable Duration idleTimeout;

		/**
		 * The most resident memory of the server's whole process tree; over it, the
		 * server is stopped (exit cause MEMORY_LIMIT) and handled by its restart policy.
		 * Default: none.
		 */
		private @Nullable DataSize maxMemory;

		/**
		 * The most live processes in the server's tree, a fork-bomb guard; over it, the
		 * server is stopped (exit cause PROCESS_LIMIT) and handled by its restart policy.
		 * Default: none.
		 */
		private @Nullable Integer maxProcesses;

		/**
		 * shared: one process tree for the whole application; per-user: the server is a
		 * template and each user (the Authentication of Spring Security) gets their own
		 * instance, started on their first call, stopped after idle-timeout (default 10m
		 * for per-user servers).
		 */
		private Instances instances = Instances.SHARED;

		/**
		 * The most instances of a per-user server at once; beyond it the least recently
		 * used instance that is not in use is stopped to make room, else the call waits
		 * for one up to instance-wait.
		 */
		private int maxInstances = 50;

		/**
		 * How long a call of a per-user server that has max-instances instances, all in
		 * use, waits for one of them to be free (then stopped to make room); then it
		 * fails naming max-instances.
		 */
		private Duration instanceWait = Duration.ofSeconds(5);

		public Instances getInstances() {
			return this.instances;
		}

		public void setInstances(Instances instances) {
			this.instances = instances;
		}

		public int getMaxInstances() {
			return this.maxInstances;
		}

		public void setMaxInstances(int maxInstances) {
			this.maxInstances = maxInstances;
		}

		public Duration getInstanceWait() {
			return this.instanceWait;
		}

		public void setInstanceWait(Duration instanceWait) {
			this.instanceWait = instanceWait;
		}

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public boolean isRequired() {
			return this.required;
		}

		public void setRequired(boolean required) {
			this.required = required;
		}

		public boolean isInheritEnv() {
			return this.inheritEnv;
		}

		public void setInheritEnv(boolean inheritEnv) {
			this.inheritEnv = inheritEnv;
		}

		public @Nullable String getWorkingDirectory() {
			return this.workingDirectory;
		}

		public void setWorkingDirectory(@Nullable String workingDirectory) {
			this.workingDirectory = workingDirectory;
		}

		public Duration getStartupTimeout() {
			return this.startupTimeout;
		}

		public void setStartupTimeout(Duration startupTimeout) {
			this.startupTimeout = startupTimeout;
		}

		public DataSize getMaxMessageSize() {
			return this.maxMessageSize;
		}

		public void setMaxMessageSize(DataSize maxMessageSize) {
			this.maxMessageSize = maxMessageSize;
		}

		public int getStderrTailLines() {
			return this.stderrTailLines;
		}

		public void setStderrTailLines(int stderrTailLines) {
			this.stderrTailLines = stderrTailLines;
		}

		public Duration getSendTimeout() {
			return this.sendTimeout;
		}

		public void setSendTimeout(Duration sendTimeout) {
			this.sendTimeout = sendTimeout;
		}

		public Shutdown getShutdown() {
			return this.shutdown;
		}

		public Restart getRestart() {
			return this.restart;
		}

		public Container getContainer() {
			return this.container;
		}

		public Sandbox getSandbox() {
			return this.sandbox;
		}

		public StartMode getStart() {
			return this.start;
		}

		public void setStart(StartMode start) {
			this.start = start;
		}

		public @Nullable Duration getIdleTimeout() {
			return this.idleTimeout;
		}

		public void setIdleTimeout(@Nullable Duration idleTimeout) {
			this.idleTimeout = idleTimeout;
		}

		public @Nullable DataSize getMaxMemory() {
			return this.maxMemory;
		}

		public void setMaxMemory(@Nullable DataSize maxMemory) {
			this.maxMemory = maxMemory;
		}

		public @Nullable Integer getMaxProcesses() {
			return this.maxProcesses;
		}

		public void setMaxProcesses(@Nullable Integer maxProcesses) {
			this.maxProcesses = maxProcesses;
		}

	}

	/**
	 * One server: its command line, and its settings over those of {@code defaults}.
	 */
	public static class Server extends ServerSettings {

		/**
		 * The command to run, a path or a name looked up in PATH. Required.
		 */
		private @Nullable String command;

		/**
		 * The command's arguments.
		 */
		private List<String> args = new ArrayList<>();

		/**
		 * Variables added to the environment the server gets, by name (a name holding
		 * other characters than letters, digits, '.', '_' and '-' is written in brackets:
		 * env[MY VAR]). Set them here, not with environment variables such as
		 * MCP_STDIO_SERVERS_X_ENV_MY_VAR, which would lower-case the name.
		 */
		private Map<String, String> env = new LinkedHashMap<>();

		/**
		 * Variables of a per-user server resolved for the calling user when their
		 * instance starts, secret values all: oauth2:<registration-id> is the user's
		 * access token from Spring Security's OAuth2 client; any other value is asked of
		 * the McpStdioUsers bean.
		 */
		private Map<String, String> userEnv = new LinkedHashMap<>();

		public Map<String, String> getUserEnv() {
			return this.userEnv;
		}

		public void setUserEnv(Map<String, String> userEnv) {
			this.userEnv = userEnv;
		}

		public @Nullable String getCommand() {
			return this.command;
		}

		public void setCommand(@Nullable String command) {
			this.command = command;
		}

		public List<String> getArgs() {
			return this.args;
		}

		public void setArgs(List<String> args) {
			this.args = args;
		}

		public Map<String, String> getEnv() {
			return this.env;
		}

		public void setEnv(Map<String, String> env) {
			this.env = env;
		}

	}

	/**
	 * The bounds of the shutdown steps, in the order they run.
	 */
	public static class Shutdown {

		/**
		 * Step 1: how long in-flight sends and requests may take to finish while new
		 * sends are refused.
		 */
		private Duration drainTimeout = Duration.ofSeconds(5);

		/**
		 * Steps 2-3: how long to wait for the process to exit after its stdin is closed.
		 */
		private Duration stdinCloseTimeout = Duration.ofSeconds(2);

		/**
		 * Step 4: how long to wait after SIGTERM to the whole process tree before
		 * SIGKILL.
		 */
		private Duration terminateTimeout = Duration.ofSeconds(2);

		public Duration getDrainTimeout() {
			return this.drainTimeout;
		}

		public void setDrainTimeout(Duration drainTimeout) {
			this.drainTimeout = drainTimeout;
		}

		public Duration getStdinCloseTimeout() {
			return this.stdinCloseTimeout;
		}

		public void setStdinCloseTimeout(Duration stdinCloseTimeout) {
			this.stdinCloseTimeout = stdinCloseTimeout;
		}

		public Duration getTerminateTimeout() {
			return this.terminateTimeout;
		}

		public void setTerminateTimeout(Duration terminateTimeout) {
			this.terminateTimeout = terminateTimeout;
		}

	}

	/**
	 * How a server whose command is docker run or podman run is run and ended.
	 */
	public static class Container {

		/**
		 * Whether a docker run or podman run command is run as a container server:
		 * labels, markers and a cidfile added, the container ended through its engine.
		 * false runs the command as given.
		 */
		private boolean enabled = true;

		/**
		 * The engine executable used to end, list and count the container, such as a full
		 * path or podman-remote. Default: the server's own command.
		 */
		private @Nullable String engineCommand;

		/**
		 * Whether to add --init (unless given), so that the server does not run as PID 1
		 * and SIGTERM ends it.
		 */
		private boolean init;

		/**
		 * How long one call of the engine's command-line interface may take (kill, rm,
		 * ps, inspect).
		 */
		private Duration engineTimeout = Duration.ofSeconds(10);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public @Nullable String getEngineCommand() {
			return this.engineCommand;
		}

		public void setEngineCommand(@Nullable String engineCommand) {
			this.engineCommand = engineCommand;
		}

		public boolean isInit() {
			return this.init;
		}

		public void setInit(boolean init) {
			this.init = init;
		}

		public Duration getEngineTimeout() {
			return this.engineTimeout;
		}

		public void setEngineTimeout(Duration engineTimeout) {
			this.engineTimeout = engineTimeout;
		}

	}

	/**
	 * The bubblewrap sandbox of a server that runs without a container.
	 */
	public static class Sandbox {

		/**
		 * Whether the server runs under bubblewrap (bwrap): only /usr, /bin, /sbin,
		 * /lib*, /etc, its command's and working directories and the listed paths, a
		 * private /tmp, its own pid, IPC, UTS and cgroup namespaces, a seccomp filter, no
		 * capabilities, and uid 65534 when the application runs as root. Where bwrap or
		 * user namespaces are missing, the server does not start.
		 */
		private boolean enabled;

		/**
		 * The network of the sandbox: none (its own loopback only, no Unix socket) or
		 * host.
		 */
		private Network network = Network.NONE;

		/**
		 * The paths the server may write; each must exist, and is resolved once and
		 * checked against a swap at every start.
		 */
		private List<String> readWrite = new ArrayList<>();

		/**
		 * The paths the server may read that the sandbox hides otherwise; each must
		 * exist, and is resolved once and checked against a swap at every start.
		 */
		private List<String> readOnly = new ArrayList<>();

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Network getNetwork() {
			return this.network;
		}

		public void setNetwork(Network network) {
			this.network = network;
		}

		public List<String> getReadWrite() {
			return this.readWrite;
		}

		public void setReadWrite(List<String> readWrite) {
			this.readWrite = readWrite;
		}

		public List<String> getReadOnly() {
			return this.readOnly;
		}

		public void setReadOnly(List<String> readOnly) {
			this.readOnly = readOnly;
		}

	}

	/**
	 * Whether a server is one process tree for all or one instance per user.
	 */
	public enum Instances {

		/**
		 * One process tree for the whole application.
		 */
		SHARED,

		/**
		 * One instance per user.
		 */
		PER_USER

	}

	/**
	 * When a server that ended unexpectedly is started again.
	 */
	public static class Restart {

		/**
		 * When to restart: never, on-failure (non-zero exit or signal) or always.
		 */
		private RestartPolicy.Mode policy = RestartPolicy.Mode.NEVER;

		/**
		 * The most restarts within the window; after that the server stays FAILED.
		 */
		private int maxRestarts = 5;

		/**
		 * The sliding window of max-restarts.
		 */
		private Duration window = Duration.ofMinutes(1);

		/**
		 * The wait before the first restart, doubled for each next one.
		 */
		private Duration initialBackoff = Duration.ofMillis(500);

		/**
		 * The longest wait between restarts.
		 */
		private Duration maxBackoff = Duration.ofSeconds(30);

		public RestartPolicy.Mode getPolicy() {
			return this.policy;
		}

		public void setPolicy(RestartPolicy.Mode policy) {
			this.policy = policy;
		}

		public int getMaxRestarts() {
			return this.maxRestarts;
		}

		public void setMaxRestarts(int maxRestarts) {
			this.maxRestarts = maxRestarts;
		}

		public Duration getWindow() {
			return this.window;
		}

		public void setWindow(Duration window) {
			this.window = window;
		}

		public Duration getInitialBackoff() {
			return this.initialBackoff;
		}

		public void setInitialBackoff(Duration initialBackoff) {
			this.initialBackoff = initialBackoff;
		}

		public Duration getMaxBackoff() {
			return this.maxBackoff;
		}

		public void setMaxBackoff(Duration maxBackoff) {
			this.maxBackoff = maxBackoff;
		}

	}

}

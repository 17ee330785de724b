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

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
	 * A JSON file in the common "mcpServers" format (as used by Claude Desktop and Spring
	 * AI) whose servers are added to those configured here.
	 */
	private @Nullable String serversConfiguration;

	/**
	 * How often the max-memory and max-processes of every server are checked. Default:
	 * 5s.
	 */
	private @Nullable Duration resourceCheckInterval;

	/**
	 * Settings that every server gets unless it sets its own.
	 */
	@NestedConfigurationProperty
	private final ServerSettings defaults = new ServerSettings();

	/**
	 * The servers, by name ([a-zA-Z0-9._-]+).
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

	public @Nullable String getServersConfiguration() {
		return this.serversConfiguration;
	}

	public void setServersConfiguration(@Nullable String serversConfiguration) {
		this.serversConfiguration = serversConfiguration;
	}

	public @Nullable Duration getResourceCheckInterval() {
		return this.resourceCheckInterval;
	}

	public void setResourceCheckInterval(@Nullable Duration resourceCheckInterval) {
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
		 * Whether the server is started. Default: true.
		 */
		private @Nullable Boolean enabled;

		/**
		 * Whether start-up fails when this server cannot start. Default: false.
		 */
		private @Nullable Boolean required;

		/**
		 * Whether the server gets the application's whole environment instead of a safe
		 * allow-list (HOME, LOGNAME, PATH, SHELL, TERM, USER, LANG, LC_*, TMPDIR).
		 * Default: false.
		 */
		private @Nullable Boolean inheritEnv;

		/**
		 * The working directory of the server. Default: the application's.
		 */
		private @Nullable String workingDirectory;

		/**
		 * How long process start and the MCP initialize handshake may take. Default: 30s.
		 */
		private @Nullable Duration startupTimeout;

		/**
		 * The longest stdout line (one JSON-RPC message) accepted; a longer one is a
		 * protocol error. Default: 16MB.
		 */
		private @Nullable DataSize maxMessageSize;

		/**
		 * How many of the last stderr lines are kept for errors and the endpoint.
		 * Default: 50.
		 */
		private @Nullable Integer stderrTailLines;

		/**
		 * How long a send may wait for the server to read its stdin; a server that keeps
		 * a write blocked that long is treated as failed and ended. Default: 30s.
		 */
		private @Nullable Duration sendTimeout;

		/**
		 * The bounds of the shutdown steps.
		 */
		private final Shutdown shutdown = new Shutdown();

		/**
		 * The restart policy.
		 */
		private final Restart restart = new Restart();

		/**
		 * When the process is first started: eager (with the application) or lazy (by the
		 * server's first message; until then it is IDLE, with no process). Default:
		 * eager.
		 */
		private @Nullable StartMode start;

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

		public @Nullable Boolean getEnabled() {
			return this.enabled;
		}

		public void setEnabled(@Nullable Boolean enabled) {
			this.enabled = enabled;
		}

		public @Nullable Boolean getRequired() {
			return this.required;
		}

		public void setRequired(@Nullable Boolean required) {
			this.required = required;
		}

		public @Nullable Boolean getInheritEnv() {
			return this.inheritEnv;
		}

		public void setInheritEnv(@Nullable Boolean inheritEnv) {
			this.inheritEnv = inheritEnv;
		}

		public @Nullable String getWorkingDirectory() {
			return this.workingDirectory;
		}

		public void setWorkingDirectory(@Nullable String workingDirectory) {
			this.workingDirectory = workingDirectory;
		}

		public @Nullable Duration getStartupTimeout() {
			return this.startupTimeout;
		}

		public void setStartupTimeout(@Nullable Duration startupTimeout) {
			this.startupTimeout = startupTimeout;
		}

		public @Nullable DataSize getMaxMessageSize() {
			return this.maxMessageSize;
		}

		public void setMaxMessageSize(@Nullable DataSize maxMessageSize) {
			this.maxMessageSize = maxMessageSize;
		}

		public @Nullable Integer getStderrTailLines() {
			return this.stderrTailLines;
		}

		public void setStderrTailLines(@Nullable Integer stderrTailLines) {
			this.stderrTailLines = stderrTailLines;
		}

		public @Nullable Duration getSendTimeout() {
			return this.sendTimeout;
		}

		public void setSendTimeout(@Nullable Duration sendTimeout) {
			this.sendTimeout = sendTimeout;
		}

		public Shutdown getShutdown() {
			return this.shutdown;
		}

		public Restart getRestart() {
			return this.restart;
		}

		public @Nullable StartMode getStart() {
			return this.start;
		}

		public void setStart(@Nullable StartMode start) {
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
	 * One server.
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
		 * Variables added to the environment the server gets.
		 */
		private Map<String, String> env = new LinkedHashMap<>();

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
		 * sends are refused. Default: 5s.
		 */
		private @Nullable Duration drainTimeout;

		/**
		 * Steps 2-3: how long to wait for the process to exit after its stdin is closed.
		 * Default: 2s.
		 */
		private @Nullable Duration stdinCloseTimeout;

		/**
		 * Step 4: how long to wait after SIGTERM to the whole process tree before
		 * SIGKILL. Default: 2s.
		 */
		private @Nullable Duration terminateTimeout;

		public @Nullable Duration getDrainTimeout() {
			return this.drainTimeout;
		}

		public void setDrainTimeout(@Nullable Duration drainTimeout) {
			this.drainTimeout = drainTimeout;
		}

		public @Nullable Duration getStdinCloseTimeout() {
			return this.stdinCloseTimeout;
		}

		public void setStdinCloseTimeout(@Nullable Duration stdinCloseTimeout) {
			this.stdinCloseTimeout = stdinCloseTimeout;
		}

		public @Nullable Duration getTerminateTimeout() {
			return this.terminateTimeout;
		}

		public void setTerminateTimeout(@Nullable Duration terminateTimeout) {
			this.terminateTimeout = terminateTimeout;
		}

	}

	/**
	 * When a server that ended unexpectedly is started again.
	 */
	public static class Restart {

		/**
		 * When to restart: never, on-failure (non-zero exit or signal) or always.
		 * Default: never.
		 */
		private @Nullable String policy;

		/**
		 * The most restarts within the window; after that the server stays FAILED.
		 * Default: 5.
		 */
		private @Nullable Integer maxRestarts;

		/**
		 * The sliding window of max-restarts. Default: 1m.
		 */
		private @Nullable Duration window;

		/**
		 * The wait before the first restart, doubled for each next one. Default: 500ms.
		 */
		private @Nullable Duration initialBackoff;

		/**
		 * The longest wait between restarts. Default: 30s.
		 */
		private @Nullable Duration maxBackoff;

		public @Nullable String getPolicy() {
			return this.policy;
		}

		public void setPolicy(@Nullable String policy) {
			this.policy = policy;
		}

		public @Nullable Integer getMaxRestarts() {
			return this.maxRestarts;
		}

		public void setMaxRestarts(@Nullable Integer maxRestarts) {
			this.maxRestarts = maxRestarts;
		}

		public @Nullable Duration getWindow() {
			return this.window;
		}

		public void setWindow(@Nullable Duration window) {
			this.window = window;
		}

		public @Nullable Duration getInitialBackoff() {
			return this.initialBackoff;
		}

		public void setInitialBackoff(@Nullable Duration initialBackoff) {
			this.initialBackoff = initialBackoff;
		}

		public @Nullable Duration getMaxBackoff() {
			return this.maxBackoff;
		}

		public void setMaxBackoff(@Nullable Duration maxBackoff) {
			this.maxBackoff = maxBackoff;
		}

	}

}

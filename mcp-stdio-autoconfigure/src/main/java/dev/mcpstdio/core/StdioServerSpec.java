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

package dev.mcpstdio.core;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.mcpstdio.core.containment.ContainerSettings;
import dev.mcpstdio.core.io.SecretSanitizer;
import dev.mcpstdio.core.io.SecretValues;
import org.jspecify.annotations.Nullable;

/**
 * Everything needed to start one stdio MCP server process.
 *
 * @param name the server's name, used in markers, logs and errors
 * @param command the executable, resolved against {@code PATH} when it has no slash
 * @param args the arguments
 * @param env variables added to the environment the server gets
 * @param inheritEnv whether the server gets the JVM's whole environment instead of the
 * safe allow-list
 * @param workingDirectory the working directory, or {@code null} for the JVM's
 * @param maxMessageSize the longest stdout line accepted, in bytes
 * @param stderrTailLines how many of the last stderr lines to keep
 * @param sendTimeout how long a send may wait for its message to be written
 * @param shutdown the bounds of each shutdown step
 * @param container how a {@code docker run} or {@code podman run} command is run and
 * ended
 * @param secrets the values masked wherever the server's output goes: at least those of
 * its secret-looking {@code env} entries
 * @param origin where the server was configured, for advice that names the user's key
 * @author mcp-stdio authors
 */
public record StdioServerSpec(String name, String command, List<String> args, Map<String, String> env,
		boolean inheritEnv, @Nullable Path workingDirectory, int maxMessageSize, int stderrTailLines,
		Duration sendTimeout, ShutdownTimeouts shutdown, ContainerSettings container, SecretValues secrets,
		ServerOrigin origin) {

	/** Default for {@link #maxMessageSize()}: 16 MiB. */
	public static final int DEFAULT_MAX_MESSAGE_SIZE = 16 * 1024 * 1024;

	/** Default for {@link #stderrTailLines()}. */
	public static final int DEFAULT_STDERR_TAIL_LINES = 50;

	/** Default for {@link #sendTimeout()}. */
	public static final Duration DEFAULT_SEND_TIMEOUT = Duration.ofSeconds(30);

	public StdioServerSpec {
		Objects.requireNonNull(name, "name");
		Objects.requireNonNull(command, "command");
		args = List.copyOf(args);
		env = Map.copyOf(env);
		if (maxMessageSize <= 0) {
			throw new IllegalArgumentException("maxMessageSize must be positive");
		}
		if (stderrTailLines < 0) {
			throw new IllegalArgumentException("stderrTailLines must not be negative");
		}
		if (sendTimeout.isNegative() || sendTimeout.isZero()) {
			throw new IllegalArgumentException("sendTimeout must be positive");
		}
		Objects.requireNonNull(shutdown, "shutdown");
		Objects.requireNonNull(container, "container");
		// whoever built the spec, the values of its secret-looking variables are masked
		secrets = secrets.and(SecretValues.ofSecretNamed(env));
		Objects.requireNonNull(origin, "origin");
	}

	/**
	 * Create a spec of a server configured under {@code mcp.stdio.servers}, whose secret
	 * values are those of its secret-looking {@code env} entries.
	 * @param name the server's name
	 * @param command the executable
	 * @param args the arguments
	 * @param env variables added to its environment
	 * @param inheritEnv whether it gets the JVM's whole environment
	 * @param workingDirectory its working directory, or {@code null}
	 * @param maxMessageSize the longest stdout line accepted, in bytes
	 * @param stderrTailLines how many of the last stderr lines to keep
	 * @param sendTimeout how long a send may wait for its message to be written
	 * @param shutdown the bounds of each shutdown step
	 * @param container how a container command is run and ended
	 */
	public StdioServerSpec(String name, String command, List<String> args, Map<String, String> env, boolean inheritEnv,
			@Nullable Path workingDirectory, int maxMessageSize, int stderrTailLines, Duration sendTimeout,
			ShutdownTimeouts shutdown, ContainerSettings container) {
		this(name, command, args, env, inheritEnv, workingDirectory, maxMessageSize, stderrTailLines, sendTimeout,
				shutdown, container, SecretValues.NONE, ServerOrigin.of(name));
	}

	/**
	 * Start a spec with defaults for everything but the name and the command line.
	 * @param name the server name
	 * @param command the executable
	 * @param args the arguments
	 * @return a new spec
	 */
	public static StdioServerSpec of(String name, String command, String... args) {
		return new StdioServerSpec(name, command, List.of(args), Map.of(), false, null, DEFAULT_MAX_MESSAGE_SIZE,
				DEFAULT_STDERR_TAIL_LINES, DEFAULT_SEND_TIMEOUT, ShutdownTimeouts.DEFAULTS, ContainerSettings.DEFAULTS);
	}

	public StdioServerSpec withEnv(Map<String, String> env) {
		Map<String, String> merged = new LinkedHashMap<>(this.env);
		merged.putAll(env);
		return new StdioServerSpec(this.name, this.command, this.args, merged, this.inheritEnv, this.workingDirectory,
				this.maxMessageSize, this.stderrTailLines, this.sendTimeout, this.shutdown, this.container,
				this.secrets, this.origin);
	}

	public StdioServerSpec withMaxMessageSize(int maxMessageSize) {
		return new StdioServerSpec(this.name, this.command, this.args, this.env, this.inheritEnv, this.workingDirectory,
				maxMessageSize, this.stderrTailLines, this.sendTimeout, this.shutdown, this.container, this.secrets,
				this.origin);
	}

	public StdioServerSpec withSendTimeout(Duration sendTimeout) {
		return new StdioServerSpec(this.name, this.command, this.args, this.env, this.inheritEnv, this.workingDirectory,
				this.maxMessageSize, this.stderrTailLines, sendTimeout, this.shutdown, this.container, this.secrets,
				this.origin);
	}

	public StdioServerSpec withShutdown(ShutdownTimeouts shutdown) {
		return new StdioServerSpec(this.name, this.command, this.args, this.env, this.inheritEnv, this.workingDirectory,
				this.maxMessageSize, this.stderrTailLines, this.sendTimeout, shutdown, this.container, this.secrets,
				this.origin);
	}

	public StdioServerSpec withContainer(ContainerSettings container) {
		return new StdioServerSpec(this.name, this.command, this.args, this.env, this.inheritEnv, this.workingDirectory,
				this.maxMessageSize, this.stderrTailLines, this.sendTimeout, this.shutdown, container, this.secrets,
				this.origin);
	}

	/**
	 * Return the command line as logs, errors and the endpoint show it: secret-looking
	 * arguments and the server's secret values masked, a long class path shortened.
	 * @return the command and its arguments separated by spaces
	 */
	public String commandLine() {
		return SecretSanitizer.commandLine(this.command, this.args, this.secrets);
	}

	/**
	 * Return free text about this server (its stderr, an error it sent) fit to show:
	 * {@link SecretSanitizer#text(String, SecretValues)} with its secret values.
	 * @param text the text
	 * @return the sanitized text
	 */
	public String sanitize(String text) {
		return SecretSanitizer.text(text, this.secrets);
	}

	@Override
	public String toString() {
		// the names of its variables only: their values may be secrets
		return "StdioServerSpec[name=" + this.name + ", command=" + commandLine() + ", env=" + this.env.keySet()
				+ ", inheritEnv=" + this.inheritEnv + ", origin=" + this.origin + "]";
	}

}

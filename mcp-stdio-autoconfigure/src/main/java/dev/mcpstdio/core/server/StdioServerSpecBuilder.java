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

package dev.mcpstdio.core.server;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.containment.ContainerSettings;
import dev.mcpstdio.core.containment.Containment.SandboxSettings;
import dev.mcpstdio.core.secrets.SecretValues;
import org.jspecify.annotations.Nullable;

/**
 * The builder of a {@link StdioServerSpec}. The core has no defaults: every setting that
 * a property configures must be given (the configuration gives each its property's
 * default), and {@link #build()} names those that were not.
 *
 * @author mcp-stdio authors
 */
public final class StdioServerSpecBuilder implements Cloneable {

	final String name;

	final String command;

	List<String> args = List.of();

	Map<String, String> env = Map.of();

	@Nullable Boolean inheritEnv;

	@Nullable Path workingDirectory;

	@Nullable Integer maxMessageSize;

	@Nullable Integer stderrTailLines;

	@Nullable Duration sendTimeout;

	@Nullable Duration startupTimeout;

	@Nullable ShutdownTimeouts shutdown;

	@Nullable ContainerSettings container;

	@Nullable SandboxSettings sandbox;

	SecretValues secrets = SecretValues.NONE;

	StdioServerSpec.Origin origin;

	StdioServerSpecBuilder(String name, String command) {
		this.name = Objects.requireNonNull(name, "name");
		this.command = Objects.requireNonNull(command, "command");
		this.origin = StdioServerSpec.Origin.of(name);
	}

	public StdioServerSpecBuilder args(List<String> args) {
		this.args = List.copyOf(args);
		return this;
	}

	public StdioServerSpecBuilder env(Map<String, String> env) {
		this.env = Map.copyOf(env);
		return this;
	}

	public StdioServerSpecBuilder inheritEnv(boolean inheritEnv) {
		this.inheritEnv = inheritEnv;
		return this;
	}

	public StdioServerSpecBuilder workingDirectory(@Nullable Path workingDirectory) {
		this.workingDirectory = workingDirectory;
		return this;
	}

	public StdioServerSpecBuilder maxMessageSize(int maxMessageSize) {
		this.maxMessageSize = maxMessageSize;
		return this;
	}

	public StdioServerSpecBuilder stderrTailLines(int stderrTailLines) {
		this.stderrTailLines = stderrTailLines;
		return this;
	}

	public StdioServerSpecBuilder sendTimeout(Duration sendTimeout) {
		this.sendTimeout = Objects.requireNonNull(sendTimeout, "sendTimeout");
		return this;
	}

	public StdioServerSpecBuilder startupTimeout(Duration startupTimeout) {
		this.startupTimeout = Objects.requireNonNull(startupTimeout, "startupTimeout");
		return this;
	}

	public StdioServerSpecBuilder shutdown(ShutdownTimeouts shutdown) {
		this.shutdown = Objects.requireNonNull(shutdown, "shutdown");
		return this;
	}

	public StdioServerSpecBuilder container(ContainerSettings container) {
		this.container = Objects.requireNonNull(container, "container");
		return this;
	}

	public StdioServerSpecBuilder sandbox(SandboxSettings sandbox) {
		this.sandbox = Objects.requireNonNull(sandbox, "sandbox");
		return this;
	}

	/**
	 * Add values to mask wherever the server's output goes, beyond its secret-looking
	 * {@code env} entries.
	 * @param secrets the values
	 * @return this builder
	 */
	public StdioServerSpecBuilder secrets(SecretValues secrets) {
		this.secrets = Objects.requireNonNull(secrets, "secrets");
		return this;
	}

	public StdioServerSpecBuilder origin(StdioServerSpec.Origin origin) {
		this.origin = Objects.requireNonNull(origin, "origin");
		return this;
	}

	/**
	 * Return the spec.
	 * @return a new spec
	 * @throws IllegalStateException naming every setting that was not given
	 * @throws IllegalArgumentException if a setting is out of its bounds
	 */
	public StdioServerSpec build() {
		List<String> missing = new ArrayList<>();
		require(missing, "inheritEnv", this.inheritEnv);
		require(missing, "maxMessageSize", this.maxMessageSize);
		require(missing, "stderrTailLines", this.stderrTailLines);
		require(missing, "sendTimeout", this.sendTimeout);
		require(missing, "startupTimeout", this.startupTimeout);
		require(missing, "shutdown", this.shutdown);
		require(missing, "container", this.container);
		require(missing, "sandbox", this.sandbox);
		if (!missing.isEmpty()) {
			throw new IllegalStateException("The spec of " + McpStdioException.describe(this.name) + " has no "
					+ String.join(", ", missing) + ": the core has no defaults, give each one (the configuration "
					+ "gives the defaults of mcp.stdio.defaults)");
		}
		if (this.maxMessageSize <= 0) {
			throw new IllegalArgumentException("maxMessageSize must be positive");
		}
		if (this.stderrTailLines < 0) {
			throw new IllegalArgumentException("stderrTailLines must not be negative");
		}
		ShutdownTimeouts.requirePositive(this.sendTimeout, "sendTimeout");
		ShutdownTimeouts.requirePositive(this.startupTimeout, "startupTimeout");
		return new StdioServerSpec(copy());
	}

	private static void require(List<String> missing, String setting, @Nullable Object value) {
		if (value == null) {
			missing.add(setting);
		}
	}

	StdioServerSpecBuilder copy() {
		try {
			// a shallow copy: every value it holds is immutable
			return (StdioServerSpecBuilder) clone();
		}
		catch (CloneNotSupportedException ex) {
			throw new IllegalStateException(ex);
		}
	}

	Object[] values() {
		return new Object[] { this.name, this.command, this.args, this.env, this.inheritEnv,
				String.valueOf(this.workingDirectory), this.maxMessageSize, this.stderrTailLines, this.sendTimeout,
				this.startupTimeout, this.shutdown, this.container, this.sandbox, this.secrets, this.origin };
	}

}

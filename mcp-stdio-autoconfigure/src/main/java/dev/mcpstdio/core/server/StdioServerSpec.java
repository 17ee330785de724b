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
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.mcpstdio.core.containment.ContainerSettings;
import dev.mcpstdio.core.containment.Containment.SandboxSettings;
import dev.mcpstdio.core.secrets.SecretSanitizer;
import dev.mcpstdio.core.secrets.SecretValues;
import org.jspecify.annotations.Nullable;

/**
 * Everything needed to start one stdio MCP server process.
 *
 * @author mcp-stdio authors
 */
public final class StdioServerSpec {

	private final StdioServerSpecBuilder settings;

	private final SecretValues secrets;

	/**
	 * Create a spec of the settings of a builder, each given and within its bounds.
	 * @param spec a copy of the builder: the builder stays the caller's to change
	 */
	StdioServerSpec(StdioServerSpecBuilder spec) {
		this.settings = spec;
		// whoever built the spec, the values of its secret-looking variables are masked
		this.secrets = spec.secrets.and(SecretValues.ofSecretNamed(spec.env));
	}

	/**
	 * Start a spec: every setting a property configures must be given, the core has no
	 * defaults.
	 * @param name the server's name, used in markers, logs and errors
	 * @param command the executable, resolved against {@code PATH} when it has no slash
	 * @return a builder
	 */
	public static StdioServerSpecBuilder builder(String name, String command) {
		return new StdioServerSpecBuilder(name, command);
	}

	/**
	 * Return a builder holding this spec's settings, to build a changed copy.
	 * @return a new builder
	 */
	public StdioServerSpecBuilder toBuilder() {
		return this.settings.copy();
	}

	/**
	 * Return this spec with more variables, which win over its own.
	 * @param env the variables to add
	 * @return the changed copy
	 */
	public StdioServerSpec withEnv(Map<String, String> env) {
		Map<String, String> merged = new LinkedHashMap<>(env());
		merged.putAll(env);
		return toBuilder().env(merged).build();
	}

	public StdioServerSpec withShutdown(ShutdownTimeouts shutdown) {
		return toBuilder().shutdown(shutdown).build();
	}

	public String name() {
		return this.settings.name;
	}

	public String command() {
		return this.settings.command;
	}

	public List<String> args() {
		return this.settings.args;
	}

	/**
	 * Return the variables added to the environment the server gets.
	 * @return the variables
	 */
	public Map<String, String> env() {
		return this.settings.env;
	}

	/**
	 * Return whether the server gets the JVM's whole environment instead of the safe
	 * allow-list.
	 * @return whether it inherits the environment
	 */
	public boolean inheritEnv() {
		return Objects.requireNonNull(this.settings.inheritEnv);
	}

	/**
	 * Return the working directory.
	 * @return the directory, or {@code null} for the JVM's
	 */
	public @Nullable Path workingDirectory() {
		return this.settings.workingDirectory;
	}

	/**
	 * Return the longest stdout line accepted.
	 * @return the size in bytes
	 */
	public int maxMessageSize() {
		return Objects.requireNonNull(this.settings.maxMessageSize);
	}

	public int stderrTailLines() {
		return Objects.requireNonNull(this.settings.stderrTailLines);
	}

	/**
	 * Return how long a send may wait for its message to be written.
	 * @return the timeout
	 */
	public Duration sendTimeout() {
		return Objects.requireNonNull(this.settings.sendTimeout);
	}

	/**
	 * Return how long process start and MCP {@code initialize} may take.
	 * @return the timeout
	 */
	public Duration startupTimeout() {
		return Objects.requireNonNull(this.settings.startupTimeout);
	}

	public ShutdownTimeouts shutdown() {
		return Objects.requireNonNull(this.settings.shutdown);
	}

	/**
	 * Return how a {@code docker run} or {@code podman run} command is run and ended.
	 * @return the container settings
	 */
	public ContainerSettings container() {
		return Objects.requireNonNull(this.settings.container);
	}

	/**
	 * Return whether and how the server runs under bubblewrap.
	 * @return the sandbox settings
	 */
	public SandboxSettings sandbox() {
		return Objects.requireNonNull(this.settings.sandbox);
	}

	/**
	 * Return the values masked wherever the server's output goes: at least those of its
	 * secret-looking {@code env} entries.
	 * @return the secret values
	 */
	public SecretValues secrets() {
		return this.secrets;
	}

	/**
	 * Return where the server was configured, for advice that names the user's key.
	 * @return the origin
	 */
	public StdioServerSpec.Origin origin() {
		return this.settings.origin;
	}

	/**
	 * Return the command line as logs, errors and the endpoint show it: secret-looking
	 * arguments and the server's secret values masked, a long class path shortened.
	 * @return the command and its arguments separated by spaces
	 */
	public String commandLine() {
		return SecretSanitizer.commandLine(command(), args(), this.secrets);
	}

	/**
	 * Return free text about this server (its stderr, an error it sent) fit to show.
	 * @param text the text
	 * @return the text with secrets and control characters masked
	 */
	public String sanitize(String text) {
		return SecretSanitizer.text(text, this.secrets);
	}

	@Override
	public boolean equals(Object other) {
		return this == other || (other instanceof StdioServerSpec spec
				&& Arrays.equals(this.settings.values(), spec.settings.values()));
	}

	@Override
	public int hashCode() {
		return Arrays.hashCode(this.settings.values());
	}

	@Override
	public String toString() {
		// the names of its variables only: their values may be secrets
		return "StdioServerSpec[name=" + name() + ", command=" + commandLine() + ", env=" + env().keySet()
				+ ", inheritEnv=" + inheritEnv() + ", origin=" + origin() + "]";
	}

	/**
	 * Where the user configured a server, so that advice names the user's own key.
	 */
	public record Origin(String serverName, @Nullable String envProperty, @Nullable String file) {

		// The property of its env (mcp.stdio.servers.files.env,
		// spring.ai.mcp.client.stdio.connections.brave.env), or its entry in a servers
		// file (classpath:mcp.json mcpServers.files); its mcp-stdio settings are under
		// mcp.stdio.servers.<name> wherever its command line came from.

		public Origin {
			Objects.requireNonNull(serverName, "serverName");
			if ((envProperty == null) == (file == null)) {
				throw new IllegalArgumentException("Exactly one of envProperty and file must be given");
			}
		}

		/**
		 * Return the origin of a server configured under {@code mcp.stdio.servers}.
		 * @param serverName the server's name
		 * @return its origin
		 */
		public static Origin of(String serverName) {
			return property(serverName, serverProperty(serverName) + ".env");
		}

		/**
		 * Return the origin of a server configured by properties.
		 * @param serverName the server's name
		 * @param envProperty the property whose keys are its variables
		 * @return its origin
		 */
		public static Origin property(String serverName, String envProperty) {
			return new Origin(serverName, envProperty, null);
		}

		/**
		 * Return the origin of a server of a servers file.
		 * @param serverName the server's name
		 * @param file the file and its entry
		 * @return its origin
		 */
		public static Origin file(String serverName, String file) {
			return new Origin(serverName, null, file);
		}

		/**
		 * Say how the user passes a variable of the application to the server, in the
		 * form of where they configured it.
		 * @param variable the variable's name
		 * @return a property with a placeholder, or the {@code env} entry of the file
		 */
		public String passVariable(String variable) {
			if (this.envProperty != null) {
				return this.envProperty + "." + variable + "=${" + variable + "}";
			}
			return "\"env\": {\"" + variable + "\": \"${" + variable + "}\"} in " + this.file;
		}

		/**
		 * Return the property that gives the server the whole environment.
		 * @return {@code mcp.stdio.servers.<name>.inherit-env}
		 */
		public String inheritEnvProperty() {
			return serverProperty(this.serverName) + ".inherit-env";
		}

		/** A name with a dot is written in brackets, as Spring Boot binds it. */
		private static String serverProperty(String serverName) {
			return "mcp.stdio.servers." + (serverName.contains(".") ? "[" + serverName + "]" : serverName);
		}

	}

}

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
import java.util.Set;

import dev.mcpstdio.autoconfigure.config.McpStdioProperties.Server;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;
import org.springframework.util.unit.DataSize;

/**
 * The checks of a server's values against their bounds, and of its per-user settings: a
 * value beyond them is a unit typed wrong, and some would overflow or leave a server
 * stuck.
 *
 * @author mcp-stdio authors
 */
final class ServerBounds {

	private static final Duration TEN_MINUTES = Duration.ofMinutes(10);

	static final Duration ONE_HOUR = Duration.ofHours(1);

	private final Problems problems;

	private final @Nullable ClassLoader classLoader;

	/** The keys binding gave a value to under {@code defaults}. */
	private final Set<String> defaultsKeys;

	ServerBounds(Problems problems, @Nullable ClassLoader classLoader, Set<String> defaultsKeys) {
		this.problems = problems;
		this.classLoader = classLoader;
		this.defaultsKeys = defaultsKeys;
	}

	/**
	 * Check a server's values against their bounds, and its per-user settings.
	 * @param configured the server
	 */
	void check(Configured configured) {
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
					"set " + ServersBinder.SERVERS + name + ".instances=per-user");
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
				this.problems.add(name, ServersBinder.SERVERS + name + ".user-env." + variable,
						value + " needs Spring Security's OAuth2 client",
						"add spring-boot-starter-security-oauth2-client");
			}
		});
	}

	private void duration(Configured configured, String key, Duration value, Duration max) {
		duration(configured.name(), configured.source(key, this.defaultsKeys), value, max);
	}

	/**
	 * Report a duration unless it is positive and at most {@code max}.
	 * @param server the server, for the report
	 * @param property the property's full name
	 * @param value its value
	 * @param max the most it may be
	 */
	void duration(String server, String property, Duration value, Duration max) {
		if (value.isNegative() || value.isZero()) {
			this.problems.add(server, property, "must be positive, was " + value, "set a positive duration such as 2s");
		}
		else if (value.compareTo(max) > 0) {
			this.problems.add(server, property, "must be at most " + format(max) + ", was " + format(value),
					"set a duration up to " + format(max));
		}
	}

	private void count(Configured configured, String key, int value, int min, int max, String action) {
		check(configured, key, value >= min && value <= max,
				"must be between " + min + " and " + max + ", was " + value, action);
	}

	/**
	 * Report the value of a server's key unless it is valid.
	 * @param configured the server
	 * @param key the key
	 * @param valid whether its value is valid
	 * @param problem what is wrong
	 * @param action how to fix it
	 */
	void check(Configured configured, String key, boolean valid, String problem, String action) {
		if (!valid) {
			this.problems.add(configured.name(), configured.source(key, this.defaultsKeys), problem, action);
		}
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

}

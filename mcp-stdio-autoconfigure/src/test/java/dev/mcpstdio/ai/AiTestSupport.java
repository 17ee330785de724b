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

package dev.mcpstdio.ai;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import dev.mcpstdio.autoconfigure.McpStdioAutoConfiguration;
import io.modelcontextprotocol.client.McpClient;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.mcp.client.common.autoconfigure.McpClientAutoConfiguration;
import org.springframework.ai.mcp.client.common.autoconfigure.McpToolCallbackAutoConfiguration;
import org.springframework.ai.mcp.client.common.autoconfigure.StdioTransportAutoConfiguration;
import org.springframework.ai.mcp.customizer.McpClientCustomizer;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.fail;

/**
 * What the Spring AI tests share: the auto-configurations, the bundled test server and
 * server-everything.
 *
 * @author mcp-stdio authors
 */
final class AiTestSupport {

	/** The system property that points at server-everything's {@code dist/index.js}. */
	static final String EVERYTHING_PROPERTY = "mcp.stdio.test.server-everything";

	private AiTestSupport() {
	}

	static ApplicationContextRunner runner() {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(McpStdioAutoConfiguration.class,
				McpStdioAiAutoConfiguration.class, StdioTransportAutoConfiguration.class,
				McpClientAutoConfiguration.class, McpToolCallbackAutoConfiguration.class));
	}

	static String java() {
		return Path.of(System.getProperty("java.home"), "bin", "java").toString();
	}

	/**
	 * Properties for one server running {@link TestMcpServer}.
	 * @param name the server's name
	 * @param marker the fixtures' marker value
	 * @param extraArgs arguments for the server
	 * @return the properties
	 */
	static List<String> testServer(String name, String marker, String... extraArgs) {
		String prefix = "mcp.stdio.servers." + name + ".";
		List<String> properties = new ArrayList<>();
		properties.add(prefix + "command=" + java());
		properties.add(prefix + "args[0]=-cp");
		properties.add(prefix + "args[1]=" + System.getProperty("java.class.path"));
		properties.add(prefix + "args[2]=" + TestMcpServer.class.getName());
		for (int i = 0; i < extraArgs.length; i++) {
			properties.add(prefix + "args[" + (3 + i) + "]=" + extraArgs[i]);
		}
		properties.add(prefix + "env.MCP_STDIO_TEST=" + marker);
		properties.add(prefix + "shutdown.drain-timeout=1s");
		properties.add(prefix + "shutdown.stdin-close-timeout=1s");
		properties.add(prefix + "shutdown.terminate-timeout=1s");
		return properties;
	}

	/**
	 * Find server-everything: the system property, else where {@code .ci/run} installs
	 * it.
	 * @return its {@code dist/index.js}, or {@code null} when it is not installed
	 */
	static @Nullable Path serverEverything() {
		String configured = System.getProperty(EVERYTHING_PROPERTY);
		Path candidate = (configured != null) ? Path.of(configured) : Path
			.of("..", ".ci", "node", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
			.toAbsolutePath()
			.normalize();
		return Files.isRegularFile(candidate) ? candidate : null;
	}

	static @Nullable String node() {
		String path = System.getenv("PATH");
		if (path == null) {
			return null;
		}
		for (String dir : path.split(File.pathSeparator)) {
			Path node = Path.of(dir, "node");
			if (Files.isExecutable(node)) {
				return node.toString();
			}
		}
		return null;
	}

	static void await(Duration bound, String what, BooleanSupplier condition) {
		long deadline = System.nanoTime() + bound.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				fail("Not within " + bound + ": " + what);
			}
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				fail("Interrupted waiting for " + what);
			}
		}
	}

	static void kill(long pid) {
		ProcessHandle handle = ProcessHandle.of(pid).orElseThrow(() -> new AssertionError("no process " + pid));
		handle.destroyForcibly();
		try {
			handle.onExit().get(5, java.util.concurrent.TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new AssertionError("process " + pid + " did not die", ex);
		}
	}

	/**
	 * Spring AI's initialization and request timeouts so long (2 minutes) that a failure
	 * that waited for one would show.
	 */
	@Configuration(proxyBeanMethods = false)
	static class LongTimeouts {

		@Bean
		McpClientCustomizer<McpClient.SyncSpec> longTimeouts() {
			return (name, spec) -> spec.initializationTimeout(Duration.ofMinutes(2))
				.requestTimeout(Duration.ofMinutes(2));
		}

	}

}

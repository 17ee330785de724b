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
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.mcpstdio.autoconfigure.actuate.McpServersEndpointAutoConfiguration;
import dev.mcpstdio.autoconfigure.actuate.McpServersHealthContributorAutoConfiguration;
import dev.mcpstdio.autoconfigure.McpStdioAutoConfiguration;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.autoconfigure.ai.McpStdioAiAutoConfiguration;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.mcp.client.common.autoconfigure.McpClientAutoConfiguration;
import org.springframework.ai.mcp.client.common.autoconfigure.McpToolCallbackAutoConfiguration;
import org.springframework.ai.mcp.client.common.autoconfigure.StdioTransportAutoConfiguration;
import org.springframework.ai.mcp.customizer.McpClientCustomizer;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the Spring AI tests share: the auto-configurations, the bundled test server and
 * server-everything.
 *
 * @author mcp-stdio authors
 */
final class AiTestSupport {

	/** The system property that points at server-everything's {@code dist/index.js}. */
	static final String EVERYTHING_PROPERTY = "mcp.stdio.test.server-everything";

	/**
	 * A variable of the test JVM (see the surefire configuration) that no server gets.
	 */
	static final String TOKEN_VARIABLE = "MCP_STDIO_TEST_TOKEN";

	private AiTestSupport() {
	}

	static ApplicationContextRunner runner() {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(McpStdioAutoConfiguration.class,
				McpStdioAiAutoConfiguration.class, StdioTransportAutoConfiguration.class,
				McpClientAutoConfiguration.class, McpToolCallbackAutoConfiguration.class));
	}

	static ApplicationContextRunner runnerWithEndpoint() {
		return runner()
			.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class,
					McpServersEndpointAutoConfiguration.class, McpServersHealthContributorAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=mcpservers");
	}

	static String java() {
		return Fixtures.java(TestMcpServer.class.getName()).get(0);
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
		List<String> properties = new ArrayList<>(testServerCommand(prefix, extraArgs));
		properties.add(prefix + "env.MCP_STDIO_TEST=" + marker);
		properties.add(prefix + "shutdown.drain-timeout=1s");
		properties.add(prefix + "shutdown.stdin-close-timeout=1s");
		properties.add(prefix + "shutdown.terminate-timeout=1s");
		return properties;
	}

	/**
	 * The arguments of {@code java} that run {@link TestMcpServer}, as the JSON array of
	 * an {@code mcpServers} file.
	 * @param extraArgs arguments for the server
	 * @return the JSON array
	 */
	static String testServerArgsJson(String... extraArgs) {
		List<String> command = Fixtures.java(TestMcpServer.class.getName(), extraArgs);
		return JsonMapper.shared().writeValueAsString(command.subList(1, command.size()));
	}

	/**
	 * The command of a server that runs {@link TestMcpServer}, as the properties
	 * {@code command} and {@code args[i]} of a server.
	 * @param prefix the server's prefix, such as {@code mcp.stdio.servers.demo.}
	 * @param extraArgs arguments for the server
	 * @return the properties
	 */
	static List<String> testServerCommand(String prefix, String... extraArgs) {
		List<String> command = Fixtures.java(TestMcpServer.class.getName(), extraArgs);
		List<String> properties = new ArrayList<>();
		properties.add(prefix + "command=" + command.get(0));
		for (int i = 1; i < command.size(); i++) {
			properties.add(prefix + "args[" + (i - 1) + "]=" + command.get(i));
		}
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

	static String requiredNeedyMessage() {
		return "MCP server 'needy' is required but could not start: MCP server 'needy' process exited unexpectedly "
				+ "with exit code 2; stderr: Error: " + TOKEN_VARIABLE + " is not set\n" + "Hint: the server's stderr "
				+ "names " + TOKEN_VARIABLE + ", a variable of the application that the server did not get (a server "
				+ "gets only an allow-list of the application's environment); pass it with mcp.stdio.servers.needy.env."
				+ TOKEN_VARIABLE + "=${" + TOKEN_VARIABLE + "} or set mcp.stdio.servers.needy.inherit-env=true";
	}

	static List<McpSyncClient> syncClients(ApplicationContext context) {
		@SuppressWarnings("unchecked")
		List<McpSyncClient> clients = context.getBean("mcpSyncClients", List.class);
		return clients;
	}

	static int count(String text, String what) {
		Matcher matcher = Pattern.compile(Pattern.quote(what)).matcher(text);
		int count = 0;
		while (matcher.find()) {
			count++;
		}
		return count;
	}

	/**
	 * Return the messages of a failure and its causes, one a line: the MCP SDK wraps the
	 * failure of an initialize it makes on the caller's behalf.
	 * @param thrown the failure
	 * @return the messages
	 */
	static String messages(Throwable thrown) {
		StringBuilder messages = new StringBuilder();
		for (Throwable cause = thrown; cause != null; cause = cause.getCause()) {
			messages.append(cause.getMessage()).append('\n');
		}
		return messages.toString();
	}

	static <T extends Throwable> T findCause(Throwable thrown, Class<T> type) {
		for (Throwable candidate = thrown; candidate != null; candidate = candidate.getCause()) {
			if (type.isInstance(candidate)) {
				return type.cast(candidate);
			}
		}
		throw new AssertionError("No " + type.getSimpleName() + " in " + thrown, thrown);
	}

	static McpSyncClient syncClient(ApplicationContext context) {
		@SuppressWarnings("unchecked")
		List<McpSyncClient> clients = context.getBean("mcpSyncClients", List.class);
		assertThat(clients).hasSize(1);
		return clients.get(0);
	}

	static String text(CallToolResult result) {
		assertThat(result.isError()).isNotEqualTo(Boolean.TRUE);
		return ((TextContent) result.content().get(0)).text();
	}

	@SafeVarargs
	static String[] properties(List<String>... lists) {
		return Arrays.stream(lists).flatMap(List::stream).toArray(String[]::new);
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

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

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the hint of {@link ServerEnvironment} that names a variable the allow-list
 * withheld.
 *
 * @author mcp-stdio authors
 */
class ServerEnvironmentTests {

	private static final Set<String> JVM = Set.of("HOME", "PATH", "MY_TOKEN", "GITHUB_TOKEN", "JAVA_HOME", "http_proxy",
			"A", "proxy");

	private static final Set<String> SERVER = Set.of("HOME", "PATH", "MCP_STDIO_SERVER");

	private static final StdioServerSpec.Origin ORIGIN = StdioServerSpec.Origin.of("files");

	@Test
	void namesTheWithheldVariableAndHowToPassIt() {
		assertThat(ServerEnvironment.hint(JVM, SERVER, List.of("starting", "Error: MY_TOKEN is not set"), ORIGIN))
			.isEqualTo("Hint: the server's stderr names MY_TOKEN, a variable of the application that the server did "
					+ "not get (a server gets only an allow-list of the application's environment); pass it with "
					+ "mcp.stdio.servers.files.env.MY_TOKEN=${MY_TOKEN} or set mcp.stdio.servers.files.inherit-env=true");
	}

	@Test
	void oneHintForTheFirstNamed() {
		assertThat(ServerEnvironment.hint(JVM, SERVER,
				List.of("missing GITHUB_TOKEN", "and also MY_TOKEN", "JAVA_HOME too"), ORIGIN))
			.isNotNull()
			.satisfies((hint) -> assertThat(hint).contains("names GITHUB_TOKEN,")
				.doesNotContain("MY_TOKEN")
				.doesNotContain("JAVA_HOME"));
	}

	@Test
	void matchesWholeWordsInAnyPunctuation() {
		assertThat(ServerEnvironment.hint(JVM, SERVER, List.of("env var 'JAVA_HOME' unset;"), ORIGIN)).isNotNull()
			.satisfies((hint) -> assertThat(hint).contains("names JAVA_HOME,"));
		assertThat(ServerEnvironment.hint(JVM, SERVER, List.of("process.env.MY_TOKEN undefined"), ORIGIN)).isNotNull()
			.satisfies((hint) -> assertThat(hint).contains("names MY_TOKEN,"));
		assertThat(ServerEnvironment.hint(JVM, SERVER, List.of("no MY_TOKENS here", "nor XMY_TOKEN"), ORIGIN)).isNull();
		assertThat(ServerEnvironment.hint(JVM, SERVER, List.of("use http_proxy"), ORIGIN)).isNotNull()
			.satisfies((hint) -> assertThat(hint).contains("names http_proxy,"));
	}

	@Test
	void neverAValue() {
		Set<String> jvm = Set.of("MY_TOKEN");
		assertThat(ServerEnvironment.hint(jvm, Set.of(), List.of("MY_TOKEN=abc123 rejected"), ORIGIN)).isNotNull()
			.satisfies((hint) -> assertThat(hint).doesNotContain("abc123"));
	}

	@Test
	void noHintWhenTheServerGotTheVariable() {
		assertThat(ServerEnvironment.hint(JVM, SERVER, List.of("bad HOME", "PATH is wrong"), ORIGIN)).isNull();
		assertThat(ServerEnvironment.hint(JVM, Set.of("MY_TOKEN"), List.of("MY_TOKEN rejected"), ORIGIN)).isNull();
	}

	@Test
	void noHintForWordsTheApplicationDoesNotHave() {
		assertThat(ServerEnvironment.hint(JVM, SERVER, List.of("OTHER_TOKEN is not set"), ORIGIN)).isNull();
		assertThat(ServerEnvironment.hint(JVM, SERVER, List.of(), ORIGIN)).isNull();
	}

	@Test
	void noHintForShortOrProseWords() {
		// "A" and "proxy" are variables of the application, but too ordinary as words
		assertThat(ServerEnvironment.hint(JVM, SERVER, List.of("A proxy failed"), ORIGIN)).isNull();
	}

	@Test
	void namesTheKeyWhereTheUserConfiguredTheServer() {
		List<String> stderr = List.of("Error: MY_TOKEN is not set");
		assertThat(ServerEnvironment.hint(JVM, SERVER, stderr,
				StdioServerSpec.Origin.property("brave", "spring.ai.mcp.client.stdio.connections.brave.env")))
			.isNotNull()
			.satisfies((hint) -> assertThat(hint).endsWith(
					"pass it with " + "spring.ai.mcp.client.stdio.connections.brave.env.MY_TOKEN=${MY_TOKEN} or set "
							+ "mcp.stdio.servers.brave.inherit-env=true"));
		assertThat(ServerEnvironment.hint(JVM, SERVER, stderr,
				StdioServerSpec.Origin.file("files", "classpath:mcp-servers.json mcpServers.files")))
			.isNotNull()
			.satisfies((hint) -> assertThat(hint).endsWith("pass it with \"env\": {\"MY_TOKEN\": "
					+ "\"${MY_TOKEN}\"} in classpath:mcp-servers.json mcpServers.files or set "
					+ "mcp.stdio.servers.files.inherit-env=true"));
	}

}

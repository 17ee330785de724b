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

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Spring AI application with a server that cannot start, in a JVM of its own: a
 * required one fails start-up with the failure analysis and the JVM exits by itself; one
 * that is not required is left out and the application runs. Nothing is left behind.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class ForkedJvmTests {

	private final Fixtures fixtures;

	@TempDir
	Path temp;

	ForkedJvmTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void requiredServerThatCannotStartFailsStartUpWithTheFailureAnalysis() throws Exception {
		String output = run(1,
				AiTestSupport.testServer("needy", this.fixtures.id(), "--require-env", AiTestSupport.TOKEN_VARIABLE),
				List.of("mcp.stdio.servers.needy.required=true"));
		// Spring Boot's report, from McpServerStartupFailureAnalyzer, not a bean-creation
		// chain of Spring AI's
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Description:\n\n" + AiTestSupport.requiredNeedyMessage()
					+ "\n\nThe server is required (mcp.stdio.servers.needy.required=true)")
			.contains("Action:\n\nMake MCP server 'needy' start")
			.contains("set mcp.stdio.servers.needy.required=false")
			.doesNotContain(System.getenv(AiTestSupport.TOKEN_VARIABLE))
			.doesNotContain("Did not observe any item or terminal signal");
		assertThat(AiTestSupport.count(output, "Started MCP server 'needy'")).isOne();
	}

	@Test
	void serverThatIsNotRequiredIsLeftOutAndTheApplicationRuns() throws Exception {
		String output = run(0,
				AiTestSupport.testServer("needy", this.fixtures.id(), "--require-env", AiTestSupport.TOKEN_VARIABLE),
				AiTestSupport.testServer("good", this.fixtures.id()));
		assertThat(output).contains("MCP server 'needy' could not start and is FAILED")
			.contains("Started ForkedApplication")
			.doesNotContain("APPLICATION FAILED TO START");
		assertThat(AiTestSupport.count(output, "could not start and is FAILED")).isOne();
	}

	/**
	 * Run {@link ForkedApplication} until it exits by itself.
	 * @return what it wrote
	 */
	@SafeVarargs
	private String run(int expectedExit, List<String>... properties) throws Exception {
		Path log = this.temp.resolve("out.log");
		List<String> command = new ArrayList<>(Fixtures.java(ForkedApplication.class.getName()));
		for (List<String> list : properties) {
			for (String property : list) {
				command.add("--" + property);
			}
		}
		// with Spring AI's timeouts (ForkedApplication) as long, so that waiting shows
		command.add("--mcp.stdio.defaults.startup-timeout=2m");
		Process jvm = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		try {
			// no non-daemon thread may keep the JVM alive; generous: on a loaded machine
			// the two JVMs' start-up alone can take long. Every timeout that could end
			// the start-up is 2 minutes, so a start-up that waited for one would show
			assertThat(jvm.waitFor(60, TimeUnit.SECONDS)).as("forked JVM exited by itself").isTrue();
		}
		finally {
			jvm.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
		}
		String output = read(log);
		assertThat(jvm.exitValue()).as(output).isEqualTo(expectedExit);
		return output;
	}

	private static String read(Path log) throws IOException {
		return Files.readString(log, StandardCharsets.UTF_8);
	}

}

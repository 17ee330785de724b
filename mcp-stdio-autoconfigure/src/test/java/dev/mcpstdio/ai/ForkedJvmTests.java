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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.test.Fixtures;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Spring AI application whose server exits at once, in a JVM of its own: start-up fails
 * fast and the JVM exits by itself, nothing left behind.
 *
 * @author mcp-stdio authors
 */
class ForkedJvmTests {

	private final Fixtures fixtures = new Fixtures();

	@TempDir
	Path temp;

	@AfterEach
	void noProcessLeftBehind() {
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void serverThatExitsAtOnceFailsStartUpAndTheJvmExits() throws Exception {
		Path log = this.temp.resolve("out.log");
		List<String> command = new ArrayList<>(List.of(AiTestSupport.java(), "-cp",
				System.getProperty("java.class.path"), ForkedApplication.class.getName()));
		for (String property : AiTestSupport.testServer("demo", this.fixtures.id(), "--exit-now", "3")) {
			command.add("--" + property);
		}
		Process jvm = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		try {
			// no non-daemon thread may keep the JVM alive; generous: on a loaded machine
			// the two JVMs' start-up alone can take longer than Spring AI's 20 s
			// initialization timeout
			assertThat(jvm.waitFor(60, TimeUnit.SECONDS)).as("forked JVM exited by itself").isTrue();
		}
		finally {
			jvm.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
		}
		String output = read(log);
		assertThat(jvm.exitValue()).as(output).isNotZero();
		assertThat(output).contains("boom: missing dependency");
		// the exit ended the initialization, not Spring AI's timeout: told by the cause
		// of the start-up failure (an McpError or the McpServerExitedException itself,
		// depending on whether the exit came before or after the initialize request),
		// which does not depend on the machine's speed
		assertThat(output).contains("Application run failed");
		assertThat(output.substring(output.indexOf("Application run failed"))).as(output)
			.contains("MCP server 'demo' process exited unexpectedly with exit code 3")
			.doesNotContain("Did not observe any item or terminal signal");
	}

	private static String read(Path log) throws IOException {
		return Files.readString(log, StandardCharsets.UTF_8);
	}

}

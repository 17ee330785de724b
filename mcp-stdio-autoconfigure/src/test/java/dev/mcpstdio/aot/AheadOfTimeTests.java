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
package dev.mcpstdio.aot;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import dev.mcpstdio.lifecycle.ForkedJvm;
import dev.mcpstdio.test.AheadOfTime;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application with the starter but without Spring AI and the actuator on its class
 * path, processed ahead of time with servers from properties and from a servers file,
 * then run with {@code -Dspring.aot.enabled=true} and another configuration (other
 * properties, another file, environment variables): it runs the servers configured when
 * it starts, and SIGTERM stops them, nothing left behind. (The sample app's
 * {@code SampleApplicationAotTests} does the same with Spring AI and the actuator.)
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class AheadOfTimeTests {

	/** Spring AI, the MCP SDK, the actuator and its health. */
	private static final Predicate<String> WITHOUT_SPRING_AI_AND_ACTUATOR = (entry) -> {
		String name = Path.of(entry).getFileName().toString();
		return !name.startsWith("spring-ai-") && !name.startsWith("mcp-") && !name.startsWith("spring-boot-actuator")
				&& !name.startsWith("spring-boot-health");
	};

	private final Fixtures fixtures;

	@TempDir
	Path temp;

	AheadOfTimeTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void processedWithoutSpringAiAndTheActuatorItRunsTheServersConfiguredWhenItStarts() throws Exception {
		Path buildFile = this.temp.resolve("build.json");
		Files.writeString(buildFile, file("from-build-file"));
		AheadOfTime application = AheadOfTime.process(PlainApplication.class.getName(), this.temp.resolve("build"),
				WITHOUT_SPRING_AI_AND_ACTUATOR, "--spring.main.web-application-type=none",
				"--mcp.stdio.servers-configuration=" + buildFile, "--mcp.stdio.servers.built.command=sh",
				"--mcp.stdio.servers.built.args=" + Fixtures.script("echo.sh"));
		assertThat(application.generated("dev/mcpstdio/autoconfigure/McpStdioAutoConfiguration__BeanDefinitions.java"))
			.isTrue();
		assertThat(application
			.generated("dev/mcpstdio/autoconfigure/ai/McpStdioAiAutoConfiguration__BeanDefinitions.java")).isFalse();
		assertThat(
				application.generated("dev/mcpstdio/actuate/McpServersEndpointAutoConfiguration__BeanDefinitions.java"))
			.isFalse();
		Path runFile = this.temp.resolve("run.json");
		Files.writeString(runFile, file("from-run-file"));
		String marker = Fixtures.MARKER + "=" + this.fixtures.id();
		List<String> command = new ArrayList<>(application.java("--spring.main.web-application-type=none",
				"--spring.main.keep-alive=true", "--logging.pattern.console=%m%n",
				"--mcp.stdio.servers-configuration=" + runFile, "--mcp.stdio.servers.ran.command=sh",
				"--mcp.stdio.servers.ran.args=" + Fixtures.script("echo.sh"), "--mcp.stdio.servers.ran.env." + marker));
		// and one whose command line comes from the environment of the run (its marker,
		// an entry of env, cannot)
		command.add("--mcp.stdio.servers.fromenv.env." + marker);
		Map<String, String> environment = Map.of("MCP_STDIO_SERVERS_FROMENV_COMMAND", "sh",
				"MCP_STDIO_SERVERS_FROMENV_ARGS_0_", Fixtures.script("echo.sh"));
		try (ForkedJvm jvm = ForkedJvm.start(command, environment, "Started PlainApplication")) {
			jvm.awaitLine(Duration.ofSeconds(90));
			assertThat(jvm.output())
				.anySatisfy((line) -> assertThat(line).startsWith("Starting AOT-processed PlainApplication"))
				.anySatisfy((line) -> assertThat(line).startsWith("Started MCP server 'ran'"))
				.anySatisfy((line) -> assertThat(line).startsWith("Started MCP server 'from-run-file'"))
				.anySatisfy((line) -> assertThat(line).startsWith("Started MCP server 'fromenv'"))
				.noneSatisfy((line) -> assertThat(line).contains("'built'"))
				.noneSatisfy((line) -> assertThat(line).contains("'from-build-file'"));
			assertThat(this.fixtures.alive()).hasSize(3);
			assertThat(jvm.process().toHandle().destroy()).isTrue();
			assertThat(jvm.awaitExit(Duration.ofSeconds(60))).as(() -> String.join("\n", jvm.output())).isEqualTo(143);
			assertThat(jvm.output()).anySatisfy((line) -> assertThat(line).startsWith("Stopped MCP server 'ran'"))
				.anySatisfy((line) -> assertThat(line).startsWith("Stopped MCP server 'from-run-file'"))
				.anySatisfy((line) -> assertThat(line).startsWith("Stopped MCP server 'fromenv'"));
		}
		this.fixtures.assertNoneAlive(Duration.ofSeconds(10));
	}

	private String file(String server) {
		return "{\"mcpServers\": {\"" + server + "\": {\"command\": \"sh\", \"args\": [\"" + Fixtures.script("echo.sh")
				+ "\"], \"env\": {\"" + Fixtures.MARKER + "\": \"" + this.fixtures.id() + "\"}}}}";
	}

}

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

package dev.mcpstdio.autoconfigure;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.autoconfigure.config.ServersFile;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Tests for the servers file: {@code ${VAR}} and {@code ${VAR:-default}} resolved from
 * the environment, {@code cwd}, plain paths, and errors that name file, server, line and
 * column but never quote a value.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class McpStdioServersFileTests {

	/** Set by surefire for the test JVM (see the module's pom). */
	private static final String SECRET_VARIABLE = "MCP_STDIO_TEST_SECRET";

	private static final String SECRET_VALUE = "s3cr3t-value";

	private final Fixtures fixtures;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(McpStdioAutoConfiguration.class));

	@TempDir
	Path temp;

	McpStdioServersFileTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void placeholdersAreResolvedFromEnvironmentVariablesAndProperties() throws IOException {
		assertThat(System.getenv(SECRET_VARIABLE)).isEqualTo(SECRET_VALUE);
		Path file = write("""
				{"mcpServers": {"env": {
				  "command": "${FIXTURE_SHELL:-sh}",
				  "args": ["${fixture.dir}/print-env.sh"],
				  "env": {"FROM_ENV": "${MCP_STDIO_TEST_SECRET}", "FROM_PROPERTY": "${my.level}",
				          "DEFAULTED": "${NOT_SET_ANYWHERE_MCP:-fallback}", "EMPTY_DEFAULTED": "${empty.value:-used}",
				          "LITERAL": "\\\\${NOT_RESOLVED}", "MIXED": "a-${my.level}-b", "%s": "%s"}
				}}}
				""".formatted(Fixtures.MARKER, this.fixtures.id()));
		this.runner.withPropertyValues("mcp.stdio.servers-configuration=" + file,
				"fixture.dir=" + Path.of(Fixtures.script("print-env.sh")).getParent(), "my.level=debug", "empty.value=")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				McpStdioServer server = context.getBean(McpStdioServers.class).get("env");
				StdioServerSpec spec = server.definition().spec();
				assertThat(spec.command()).isEqualTo("sh");
				assertThat(spec.args()).containsExactly(Fixtures.script("print-env.sh"));
				assertThat(spec.env()).containsEntry("FROM_ENV", SECRET_VALUE)
					.containsEntry("FROM_PROPERTY", "debug")
					.containsEntry("DEFAULTED", "fallback")
					.containsEntry("EMPTY_DEFAULTED", "used")
					.containsEntry("LITERAL", "${NOT_RESOLVED}")
					.containsEntry("MIXED", "a-debug-b");
				// the process got them
				assertThat(server.state()).isEqualTo(ServerState.RUNNING);
				awaitStderr(server, "env printed");
				// the value of a placeholder of a secret-looking variable is masked: seen
				// masked, the server got the registered value
				assertThat(server.process().stderrTail()).contains("FROM_ENV=******", "FROM_PROPERTY=debug",
						"DEFAULTED=fallback", "LITERAL=${NOT_RESOLVED}");
			});
	}

	@Test
	void missingVariableNamesFileServerAndVariableNeverAValue() throws IOException {
		Path started = this.temp.resolve("started");
		Path file = write("""
				{"mcpServers": {"files": {"command": "sh", "args": ["--token", "${MCP_STDIO_TEST_SECRET}"],
				  "env": {"API_TOKEN": "${MY_TOKEN_NOT_SET_MCP}"}}}}
				""");
		this.runner.withPropertyValues(ConfigurationTestSupport.witness("good", this.fixtures, started))
			.withPropertyValues("mcp.stdio.servers-configuration=" + file)
			.run((context) -> {
				FailureAnalysis analysis = ConfigurationTestSupport.assertFailure(context, "files",
						"mcp.stdio.servers-configuration",
						"the variable MY_TOKEN_NOT_SET_MCP in env.API_TOKEN of server 'files' in " + file
								+ " is not set",
						"set MY_TOKEN_NOT_SET_MCP (an environment variable or a property), or give a default: "
								+ "${MY_TOKEN_NOT_SET_MCP:-default}");
				assertThat(analysis.getDescription() + analysis.getAction()).doesNotContain(SECRET_VALUE);
				assertThat(context.getStartupFailure().getMessage()).doesNotContain(SECRET_VALUE);
				ConfigurationTestSupport.assertNeverStarted(started);
			});
	}

	@Test
	void aVariableMissingInSeveralValuesIsOneProblemEachButOneAction() throws IOException {
		Path file = write("""
				{"mcpServers": {"files": {"command": "sh", "args": ["--token", "${MY_TOKEN_NOT_SET_MCP}"],
				  "env": {"API_TOKEN": "${MY_TOKEN_NOT_SET_MCP}", "OTHER_TOKEN": "${MY_TOKEN_NOT_SET_MCP}"}}}}
				""");
		this.runner.withPropertyValues("mcp.stdio.servers-configuration=" + file).run((context) -> {
			FailureAnalysis analysis = ConfigurationTestSupport.analyze(context);
			assertThat(analysis.getDescription().split("Problem: ", -1)).hasSize(4);
			assertThat(analysis.getAction().split("set MY_TOKEN_NOT_SET_MCP ", -1)).hasSize(2);
		});
	}

	@Test
	void malformedPlaceholder() throws IOException {
		Path file = write("{\"mcpServers\": {\"files\": {\"command\": \"sh\", \"args\": [\"${env:HOME}\"]}}}");
		this.runner.withPropertyValues("mcp.stdio.servers-configuration=" + file)
			.run((context) -> ConfigurationTestSupport.assertFailure(context, "files",
					"mcp.stdio.servers-configuration",
					"a placeholder in args[0] of server 'files' in " + file + " is malformed",
					"write ${VAR} or ${VAR:-default}"));
	}

	@Test
	void cwdIsTheWorkingDirectory() throws IOException {
		Path directory = Files.createDirectory(this.temp.resolve("work"));
		Path file = write("""
				{"mcpServers": {"relative": {"command": "sh", "args": ["echo.sh"], "cwd": "${fixture.dir}",
				  "env": {"%s": "%s"}},
				 "elsewhere": {"command": "sh", "args": ["%s"], "cwd": "%s", "env": {"%s": "%s"}}}}
				""".formatted(Fixtures.MARKER, this.fixtures.id(), Fixtures.script("echo.sh"), directory,
				Fixtures.MARKER, this.fixtures.id()));
		this.runner
			.withPropertyValues("mcp.stdio.servers-configuration=" + file,
					"fixture.dir=" + Path.of(Fixtures.script("echo.sh")).getParent(),
					"mcp.stdio.defaults.working-directory=/no/such/directory/mcp")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				McpStdioServers servers = context.getBean(McpStdioServers.class);
				// cwd is the server's own working-directory: it overrides defaults
				assertThat(servers.get("relative").definition().spec().workingDirectory())
					.isEqualTo(Path.of(Fixtures.script("echo.sh")).getParent());
				assertThat(servers.get("elsewhere").definition().spec().workingDirectory()).isEqualTo(directory);
				// started with the relative script: the working directory was applied
				assertThat(servers.get("relative").state()).isEqualTo(ServerState.RUNNING);
				assertThat(servers.get("elsewhere").state()).isEqualTo(ServerState.RUNNING);
				assertThat(this.fixtures.alive()).contains(servers.get("relative").pid(),
						servers.get("elsewhere").pid());
			});
	}

	@Test
	void missingCwdNamesTheFile() throws IOException {
		Path missing = this.temp.resolve("missing");
		Path file = write("{\"mcpServers\": {\"a\": {\"command\": \"sh\", \"cwd\": \"%s\"}}}".formatted(missing));
		this.runner.withPropertyValues("mcp.stdio.servers-configuration=" + file)
			.run((context) -> ConfigurationTestSupport.assertFailure(context, "a",
					"mcp.stdio.servers.a.working-directory",
					"the directory " + missing + " does not exist (in " + file + " mcpServers.a)",
					"create it or point working-directory at an existing directory"));
	}

	@Test
	void plainAbsolutePathIsAFile() throws IOException {
		Path file = write(
				"{\"mcpServers\": {\"plain\": {\"command\": \"sh\", \"args\": [\"%s\"], \"env\": {\"%s\": \"%s\"}}}}"
					.formatted(Fixtures.script("echo.sh"), Fixtures.MARKER, this.fixtures.id()));
		assertThat(file.isAbsolute()).isTrue();
		this.runner.withPropertyValues("mcp.stdio.servers-configuration=" + file).run((context) -> {
			assertThat(context).hasNotFailed();
			McpStdioServer server = context.getBean(McpStdioServers.class).get("plain");
			assertThat(server.state()).isEqualTo(ServerState.RUNNING);
			// contains: the sh fixture forks a helper for each message it reads
			assertThat(this.fixtures.alive()).contains(server.pid());
		});
	}

	@Test
	void plainPathThatIsNoFileIsStillLookedUpOnTheClassPath() {
		this.runner
			.withPropertyValues("mcp.stdio.servers-configuration=mcp-stdio/servers-classpath.json",
					"mcp.stdio.defaults.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(McpStdioServers.class).get("from-classpath").definition().spec().command())
					.isEqualTo("sh");
			});
	}

	@Test
	void missingPlainPath() {
		Path missing = this.temp.resolve("missing.json");
		this.runner.withPropertyValues("mcp.stdio.servers-configuration=" + missing)
			.run((context) -> ConfigurationTestSupport.assertFailure(context, "(servers file)",
					"mcp.stdio.servers-configuration", "the file " + missing + " does not exist",
					"point it at an existing mcpServers JSON file"));
	}

	@Test
	void syntaxErrorNamesLineAndColumnNeverTheContent() throws IOException {
		Path file = write("""
				{"mcpServers": {
				  "files": {
				    "command": "npx",
				    "env": {"GITHUB_TOKEN": ghp_secretSecretSecret123}
				  }
				}}
				""");
		this.runner.withPropertyValues("mcp.stdio.servers-configuration=" + file).run((context) -> {
			FailureAnalysis analysis = ConfigurationTestSupport.assertFailure(context, "(servers file)",
					"mcp.stdio.servers-configuration",
					"the file " + file + " is unusable: it is not valid JSON: unexpected text or structure at line 4, "
							+ "column 29",
					"fix the file");
			assertThat(analysis.getDescription() + analysis.getAction()).doesNotContain("ghp_", "secret", "npx");
			for (Throwable cause = context.getStartupFailure(); cause != null; cause = cause.getCause()) {
				assertThat(String.valueOf(cause.getMessage())).doesNotContain("ghp_");
			}
		});
	}

	@Test
	void truncatedFileNamesWhereItEnds() throws IOException {
		Path file = write("{\"mcpServers\": {\"a\": {\"command\": \"sk-secret-value");
		this.runner.withPropertyValues("mcp.stdio.servers-configuration=" + file).run((context) -> {
			FailureAnalysis analysis = ConfigurationTestSupport.assertFailure(context, "(servers file)",
					"mcp.stdio.servers-configuration", "is unusable: it is not valid JSON: it ends too early at line 1",
					"fix the file");
			assertThat(analysis.getDescription()).doesNotContain("sk-secret");
		});
	}

	@Test
	void fileOfFourMegabytesIsReadALargerOneIsRefused() throws IOException {
		String servers = "{\"mcpServers\": {\"big\": {\"command\": \"sh\"}}}";
		Path atLimit = write(servers + " ".repeat(ServersFile.MAX_SIZE - servers.length()));
		assertThat(Files.size(atLimit)).isEqualTo(4L * 1024 * 1024);
		this.runner.withPropertyValues("mcp.stdio.servers-configuration=" + atLimit, "mcp.stdio.defaults.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(McpStdioServers.class).get("big").definition().spec().command())
					.isEqualTo("sh");
			});
		Path over = write(servers + " ".repeat(ServersFile.MAX_SIZE - servers.length() + 1));
		this.runner.withPropertyValues("mcp.stdio.servers-configuration=" + over)
			.run((context) -> ConfigurationTestSupport.assertFailure(context, "(servers file)",
					"mcp.stdio.servers-configuration",
					"the file " + over + " is unusable: it is larger than 4 MB (4194304 bytes)", "fix the file"));
	}

	@Test
	void tooDeeplyNestedFileIsReportedAsSuchNeverAsBadText() throws IOException {
		String deep = "[".repeat(600) + "\"sk-secret-value\"" + "]".repeat(600);
		Path file = write("{\"mcpServers\": {\"a\": {\"command\": \"sh\", \"args\": " + deep + "}}}");
		this.runner.withPropertyValues("mcp.stdio.servers-configuration=" + file).run((context) -> {
			FailureAnalysis analysis = ConfigurationTestSupport.assertFailure(context, "(servers file)",
					"mcp.stdio.servers-configuration", "the file " + file
							+ " is unusable: it is nested too deeply: more than 500 levels of objects and " + "arrays",
					"fix the file");
			assertThat(analysis.getDescription()).doesNotContain("unexpected text", "sk-secret");
		});
	}

	@Test
	void fileOverAnotherLimitOfTheParserSaysWhichNeverTheValue() throws IOException {
		Path file = write("{\"mcpServers\": {\"a\": {\"command\": \"sh\", \"port\": " + "7".repeat(1500) + "}}}");
		this.runner.withPropertyValues("mcp.stdio.servers-configuration=" + file).run((context) -> {
			FailureAnalysis analysis = ConfigurationTestSupport.assertFailure(context, "(servers file)",
					"mcp.stdio.servers-configuration",
					"the file " + file + " is unusable: it is over a limit of the JSON parser: Number value length "
							+ "(1500) exceeds the maximum allowed (1000",
					"fix the file");
			// the file's own path may hold 7777 (a random temporary directory)
			assertThat(analysis.getDescription().replace(file.toString(), "")).doesNotContain("7777");
		});
	}

	@Test
	void fifoIsRefusedWithoutBeingOpened() throws Exception {
		Path fifo = this.temp.resolve("fifo.json");
		Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
		assertThat(mkfifo.waitFor(30, TimeUnit.SECONDS)).isTrue();
		assertThat(mkfifo.exitValue()).isZero();
		Path started = this.temp.resolve("started");
		try {
			// opening a FIFO for reading blocks until a writer comes: start-up would hang
			assertTimeoutPreemptively(Duration.ofSeconds(60), () -> this.runner
				.withPropertyValues(ConfigurationTestSupport.witness("w", this.fixtures, started))
				.withPropertyValues("mcp.stdio.servers-configuration=file:" + fifo)
				.run((context) -> ConfigurationTestSupport.assertFailure(context, "(servers file)",
						"mcp.stdio.servers-configuration",
						"the file file:" + fifo + " cannot be read: it is a FIFO (named pipe), not a regular file",
						"make it a readable mcpServers JSON file (a regular file)")));
		}
		finally {
			// an open that did block goes on when the FIFO gets a writer (opening it for
			// reading and writing does not block), and reads its end when that closes
			try (FileChannel writer = FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
				writer.write(ByteBuffer.wrap(new byte[] { '{', '}' }));
			}
		}
		ConfigurationTestSupport.assertNeverStarted(started);
	}

	@Test
	void deviceAndDirectoryAreNamedForWhatTheyAre() throws IOException {
		Path directory = Files.createDirectory(this.temp.resolve("servers.json"));
		this.runner.withPropertyValues("mcp.stdio.servers-configuration=" + directory)
			.run((context) -> ConfigurationTestSupport.assertFailure(context, "(servers file)",
					"mcp.stdio.servers-configuration",
					"the file " + directory + " cannot be read: it is a directory, not a regular file",
					"make it a readable mcpServers JSON file (a regular file)"));
		this.runner.withPropertyValues("mcp.stdio.servers-configuration=file:/dev/null")
			.run((context) -> ConfigurationTestSupport.assertFailure(context, "(servers file)",
					"mcp.stdio.servers-configuration",
					"the file file:/dev/null cannot be read: it is a character device, not a regular file",
					"make it a readable mcpServers JSON file (a regular file)"));
	}

	@Test
	void linkToARegularFileIsRead() throws IOException {
		// how a mounted configuration (a Kubernetes ConfigMap) often looks
		Path file = write("{\"mcpServers\": {\"linked\": {\"command\": \"sh\"}}}");
		Path link = Files.createSymbolicLink(this.temp.resolve("link.json"), file);
		this.runner.withPropertyValues("mcp.stdio.servers-configuration=" + link, "mcp.stdio.defaults.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(McpStdioServers.class).get("linked").definition().spec().command())
					.isEqualTo("sh");
			});
	}

	@Test
	void sourceThatNeverAnswersIsGivenUpAfterItsBound() throws Exception {
		// a URL whose server accepts the connection and never answers, as a stuck
		// network file system would
		List<Socket> held = new CopyOnWriteArrayList<>();
		try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
			Thread acceptor = new Thread(() -> {
				try {
					while (true) {
						held.add(server.accept());
					}
				}
				catch (IOException ex) {
					// closed at the end of the test
				}
			}, "never-answers");
			acceptor.setDaemon(true);
			acceptor.start();
			String location = "http://127.0.0.1:" + server.getLocalPort() + "/mcp.json";
			Path started = this.temp.resolve("started");
			assertTimeoutPreemptively(Duration.ofSeconds(90),
					() -> this.runner.withPropertyValues(ConfigurationTestSupport.witness("w", this.fixtures, started))
						.withPropertyValues("mcp.stdio.servers-configuration=" + location)
						.run((context) -> ConfigurationTestSupport.assertFailure(context, "(servers file)",
								"mcp.stdio.servers-configuration",
								"the file " + location + " cannot be read: it could not be read within "
										+ ServersFile.READ_TIMEOUT.toSeconds() + "s",
								"make it a readable mcpServers JSON file")));
			ConfigurationTestSupport.assertNeverStarted(started);
			assertThat(held).isNotEmpty();
		}
		finally {
			// the reader left behind gets its end
			for (Socket socket : held) {
				socket.close();
			}
		}
	}

	@Test
	void nameOutsideTheRuleIsAnErrorNamingTheFile() throws IOException {
		// JSON escapes: a right-to-left override and a bell
		Path file = write("{\"mcpServers\": {\"s\u00e9rv\\u202e \\u0007x\": {\"command\": \"sh\"}}}");
		String shown = "s\u00e9rv\\u202e \\u0007x";
		this.runner.withPropertyValues("mcp.stdio.servers-configuration=" + file).run((context) -> {
			FailureAnalysis analysis = ConfigurationTestSupport.assertFailure(context, shown,
					"mcp.stdio.servers." + shown,
					"the name must be 1 to 64 letters, digits, '.', '_' or '-', begin and end with a letter or digit, "
							+ "and have no '..' (in " + file + " mcpServers." + shown + ")",
					"rename the server");
			assertThat(analysis.getDescription()).doesNotContain("\u202e", "\u0007");
		});
	}

	@Test
	void envThatIsNotAnObjectOfStringsIsAnError() throws IOException {
		Path list = write("{\"mcpServers\": {\"a\": {\"command\": \"sh\", \"env\": [1, 2]}}}");
		this.runner.withPropertyValues("mcp.stdio.servers-configuration=" + list)
			.run((context) -> ConfigurationTestSupport.assertFailure(context, "a", "mcp.stdio.servers-configuration",
					"the file " + list + " is unusable: the env of server 'a' is not an object of names to strings",
					"fix the file"));
		// a number, a boolean or null would reach the server as "8080", "true" or "null"
		for (String value : new String[] { "8080", "true", "null", "{\"x\": \"y\"}" }) {
			Path file = write("{\"mcpServers\": {\"a\": {\"command\": \"sh\", \"env\": {\"PORT\": " + value + "}}}}");
			this.runner.withPropertyValues("mcp.stdio.servers-configuration=" + file)
				.run((context) -> ConfigurationTestSupport.assertFailure(context, "a",
						"mcp.stdio.servers-configuration",
						"the file " + file + " is unusable: env.PORT of server 'a' is not a string", "fix the file"));
		}
		Path args = write("{\"mcpServers\": {\"a\": {\"command\": \"sh\", \"args\": [\"--port\", 8080]}}}");
		this.runner.withPropertyValues("mcp.stdio.servers-configuration=" + args)
			.run((context) -> ConfigurationTestSupport.assertFailure(context, "a", "mcp.stdio.servers-configuration",
					"the file " + args + " is unusable: an argument of server 'a' is not a string", "fix the file"));
		Path map = write("{\"mcpServers\": {\"a\": {\"command\": \"sh\", \"args\": {\"port\": \"8080\"}}}}");
		this.runner.withPropertyValues("mcp.stdio.servers-configuration=" + map)
			.run((context) -> ConfigurationTestSupport.assertFailure(context, "a", "mcp.stdio.servers-configuration",
					"the file " + map + " is unusable: the args of server 'a' are not an array", "fix the file"));
	}

	@Test
	void variableNameTheOperatingSystemRefusesIsAnError() throws IOException {
		Path file = write("{\"mcpServers\": {\"a\": {\"command\": \"sh\", \"env\": {\"A=B\": \"x\"}}}}");
		this.runner.withPropertyValues("mcp.stdio.servers-configuration=" + file)
			.run((context) -> ConfigurationTestSupport.assertFailure(context, "a", "mcp.stdio.servers.a.env[A=B]",
					"'A=B' cannot name an environment variable: a name is not empty and holds no '=' or NUL (in " + file
							+ " mcpServers.a)",
					"rename the variable"));
	}

	private Path write(String content) throws IOException {
		return Files.writeString(this.temp.resolve("mcp-" + System.nanoTime() + ".json"), content);
	}

	private static void awaitStderr(McpStdioServer server, String line) {
		Await.that("stderr line '" + line + "'", () -> server.process().stderrTail().contains(line));
	}

}

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

package dev.mcpstdio.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import dev.mcpstdio.lifecycle.ForkedJvm;
import dev.mcpstdio.test.AheadOfTime;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.test.Sandboxes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample app processed ahead of time (as {@code process-aot} does) and run with
 * {@code -Dspring.aot.enabled=true} in a JVM of its own: it runs the servers configured
 * when it starts, not those of the build, and behaves as on the plain JVM: Spring AI's
 * tools and a call through them, the endpoint, health, Prometheus, a per-user server, a
 * sandboxed one, a reload by editing the servers file, the ordered stop on SIGTERM and
 * the orphan guard on kill -9, nothing left behind.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class SampleApplicationAotTests {

	private static final String DEMO_SERVER = "dev.mcpstdio.sample.server.DemoMcpServer";

	private static final Duration START = Duration.ofSeconds(90);

	private static AheadOfTime application;

	private final Fixtures fixtures;

	private final HttpClient http = HttpClient.newHttpClient();

	@TempDir
	Path temp;

	SampleApplicationAotTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	/**
	 * Process the sample ahead of time once, with a servers file and a Spring AI stdio
	 * connection of its own at build time (servers 'built' and 'builtai' that no run
	 * configures); without the tests' own classes.
	 */
	@BeforeAll
	static void processAheadOfTime(@TempDir Path build) throws Exception {
		Path file = build.resolve("build-servers.json");
		Files.writeString(file, servers(Map.of("built", "dice"), "build"));
		Predicate<String> keep = (entry) -> !Path.of(entry).endsWith(Path.of("target", "test-classes"));
		// servers from application.yml, a servers file and Spring AI's stdio connections
		List<String> args = new ArrayList<>(List.of("--mcp.stdio.servers-configuration=" + file));
		args.addAll(command("--spring.ai.mcp.client.stdio.connections.builtai.", "dice"));
		application = AheadOfTime.process(SampleApplication.class.getName(), build, keep, args.toArray(String[]::new));
	}

	@Test
	void theProcessedAppRunsTheServersConfiguredWhenItStartsAndStopsThemOnSigterm() throws Exception {
		Sandboxes.assume();
		Path file = this.temp.resolve("servers.json");
		Files.writeString(file, servers(Map.of("dice", "dice"), this.fixtures.id()));
		try (ForkedJvm jvm = start(file)) {
			String port = port(jvm);
			assertThat(jvm.output())
				.anySatisfy((line) -> assertThat(line).startsWith("Starting AOT-processed SampleApplication"))
				.noneSatisfy((line) -> assertThat(line).contains("No sampling methods found"))
				.noneSatisfy((line) -> assertThat(line).contains("No elicitation methods found"));
			// the run's servers: from its file, its properties (a sandboxed one), Spring
			// AI's stdio connections; not the build's, and those it disabled stay so
			String servers = get(port, "/actuator/mcpservers", null);
			assertThat(servers).contains("\"dice\":", "\"boxed\":", "\"adopted\":", "\"account\":")
				.contains("\"demo\":{\"state\":\"DISABLED\"", "\"clock\":{\"state\":\"DISABLED\"")
				.doesNotContain("\"built\":", "\"builtai\":");
			awaitRunning(port, "boxed");
			assertThat(get(port, "/actuator/mcpservers/boxed", null)).contains("\"sandbox\":{\"network\":");
			// Spring AI's tools, and calls through them
			assertThat(get(port, "/api/tools", null)).contains("\"roll\"", "\"echo\"", "\"uptime\"")
				.doesNotContain("\"whoami\"");
			assertThat(post(port, "/api/tools/echo", "{\"text\":\"ahead of time\"}", null)).contains("ahead of time");
			assertThat(post(port, "/api/tools/roll", "{}", null)).contains("\"tool\":\"roll\"");
			assertThat(post(port, "/api/tools/uptime", "{}", null)).contains("\"tool\":\"uptime\"");
			// a signed-in user's own instance
			assertThat(post(port, "/api/tools/whoami", "{}", "alice:alice-password"))
				.contains("token ending in 4f1c9a");
			assertThat(get(port, "/actuator/mcpservers/account", null)).contains("\"instances\":1");
			// health and Prometheus
			assertThat(get(port, "/actuator/health", null)).contains("\"mcpServers\":", "\"dice\":\"RUNNING\"");
			assertThat(get(port, "/actuator/prometheus", null)).contains("server=\"dice\"")
				.contains("gen_ai_tool_name=\"roll\"");
			// a reload by editing the servers file
			Files.writeString(file, servers(Map.of("dice", "dice", "added", "clock"), this.fixtures.id()));
			awaitRunning(port, "added");
			// SIGTERM (through the handle: Process.destroy() would also close its output)
			assertThat(jvm.process().toHandle().destroy()).isTrue();
			assertThat(jvm.awaitExit(Duration.ofSeconds(60))).as(() -> String.join("\n", jvm.output())).isEqualTo(143);
			assertThat(jvm.output()).anySatisfy((line) -> assertThat(line).startsWith("Stopped MCP server 'dice'"))
				.anySatisfy((line) -> assertThat(line).startsWith("Stopped MCP server 'added'"))
				.anySatisfy((line) -> assertThat(line).startsWith("Stopped MCP server 'boxed'"));
		}
		this.fixtures.assertNoneAlive(Duration.ofSeconds(10));
	}

	@Test
	void theProcessedAppKilledWithSigkillLeavesNoServerBehind() throws Exception {
		Sandboxes.assume();
		Path file = this.temp.resolve("servers.json");
		Files.writeString(file, servers(Map.of("dice", "dice"), this.fixtures.id()));
		try (ForkedJvm jvm = start(file)) {
			String port = port(jvm);
			awaitRunning(port, "boxed");
			assertThat(this.fixtures.alive()).hasSizeGreaterThanOrEqualTo(3);
			jvm.process().destroyForcibly();
			assertThat(jvm.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
		}
		// the orphan guard ends each server once its JVM is gone
		this.fixtures.assertNoneAlive(Duration.ofSeconds(30));
	}

	/**
	 * Start the processed app with a configuration other than the build's: its servers
	 * file, 'demo' and 'clock' disabled, a sandboxed server and one of Spring AI's stdio
	 * connections, each server marked for this test.
	 */
	private ForkedJvm start(Path file) throws Exception {
		String marker = Fixtures.MARKER + "=" + this.fixtures.id();
		List<String> args = new ArrayList<>(List.of("--server.port=0", "--logging.pattern.console=%m%n",
				"--mcp.stdio.servers-configuration=" + file, "--mcp.stdio.servers.demo.enabled=false",
				"--mcp.stdio.servers.clock.enabled=false", "--mcp.stdio.servers.account.env." + marker));
		args.addAll(command("--mcp.stdio.servers.boxed.", "clock"));
		args.addAll(
				List.of("--mcp.stdio.servers.boxed.env." + marker, "--mcp.stdio.servers.boxed.sandbox.enabled=true"));
		List<Path> readable = Sandboxes.hiddenClassPath();
		for (int i = 0; i < readable.size(); i++) {
			args.add("--mcp.stdio.servers.boxed.sandbox.read-only[" + i + "]=" + readable.get(i));
		}
		args.addAll(command("--spring.ai.mcp.client.stdio.connections.adopted.", "demo"));
		args.add("--spring.ai.mcp.client.stdio.connections.adopted.env." + marker);
		return ForkedJvm.start(application.java(args.toArray(String[]::new)), "Started SampleApplication");
	}

	private static List<String> command(String prefix, String mode) {
		List<String> properties = new ArrayList<>(List.of(prefix + "command=" + java()));
		List<String> args = args(mode);
		for (int i = 0; i < args.size(); i++) {
			properties.add(prefix + "args[" + i + "]=" + args.get(i));
		}
		return properties;
	}

	private static String servers(Map<String, String> modes, String marker) {
		Map<String, Object> servers = new java.util.TreeMap<>();
		modes.forEach((name, mode) -> servers.put(name,
				Map.of("command", java(), "args", args(mode), "env", Map.of(Fixtures.MARKER, marker))));
		return JsonMapper.shared().writeValueAsString(Map.of("mcpServers", servers));
	}

	private static String java() {
		return Path.of(System.getProperty("java.home"), "bin", "java").toString();
	}

	// the demo server from the sample's classes and its dependencies (what of them a
	// sandbox hides, the sandboxed server lists)
	private static List<String> args(String mode) {
		return List.of("-cp", System.getProperty("java.class.path"), DEMO_SERVER, mode);
	}

	private static String port(ForkedJvm jvm) throws Exception {
		jvm.awaitLine(START);
		return jvm.output()
			.stream()
			.filter((line) -> line.startsWith("Tomcat started on port "))
			.map((line) -> line.replaceAll("Tomcat started on port (\\d+).*", "$1"))
			.findFirst()
			.orElseThrow();
	}

	private void awaitRunning(String port, String server) throws Exception {
		try {
			Await.within(Duration.ofSeconds(60)).every(Duration.ofMillis(200)).until(server + " RUNNING", () -> {
				try {
					return get(port, "/actuator/mcpservers", null)
						.contains("\"" + server + "\":{\"state\":\"RUNNING\"");
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			});
		}
		catch (AssertionError ex) {
			// what the endpoint says of it tells why
			throw new AssertionError(ex.getMessage() + ": " + get(port, "/actuator/mcpservers/" + server, null), ex);
		}
	}

	private String get(String port, String path, String user) throws Exception {
		return send(request(port, path, user).GET().build());
	}

	private String post(String port, String path, String body, String user) throws Exception {
		return send(request(port, path, user).header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build());
	}

	private static HttpRequest.Builder request(String port, String path, String user) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
			.timeout(Duration.ofSeconds(30));
		if (user != null) {
			request.header("Authorization",
					"Basic " + Base64.getEncoder().encodeToString(user.getBytes(StandardCharsets.UTF_8)));
		}
		return request;
	}

	private String send(HttpRequest request) throws Exception {
		HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return response.body();
	}

}

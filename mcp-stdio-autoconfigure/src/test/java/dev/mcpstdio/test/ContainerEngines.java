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

package dev.mcpstdio.test;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The container engine of the container tests and their image. Without a running engine
 * the tests are skipped, saying why, unless {@value #REQUIRE} names the engine (CI sets
 * it): then they fail. Containers are removed by id, found by the test's own label, never
 * by a broad filter.
 *
 * @author mcp-stdio authors
 */
public final class ContainerEngines {

	/** Names the engine that must run (docker or podman); CI sets it. */
	public static final String REQUIRE = "MCP_STDIO_REQUIRE_CONTAINER_ENGINE";

	/** The test image, built by {@code containers/build-image.sh}. */
	public static final String IMAGE = "mcp-stdio-test-server:latest";

	/** The label every test container carries, with the test's id as value. */
	public static final String TEST_LABEL = "mcp-stdio-test";

	private static volatile @Nullable String engine;

	private static volatile @Nullable String problem;

	private ContainerEngines() {
	}

	/**
	 * Return the engine's executable, with the image built; skip the test without one, or
	 * fail it where {@value #REQUIRE} is set.
	 * @return the engine executable
	 */
	public static synchronized String require() {
		if (engine == null && problem == null) {
			detect();
		}
		String found = engine;
		String required = System.getenv(REQUIRE);
		if (found == null) {
			String why = "no container engine for the container tests: " + problem;
			if (required != null && !required.isBlank()) {
				fail(why + " (" + REQUIRE + "=" + required + ")");
			}
			assumeTrue(false, why);
		}
		return found;
	}

	private static void detect() {
		String required = System.getenv(REQUIRE);
		String name = (required != null && required.equals("podman")) ? "podman" : "docker";
		String executable = onPath(name);
		if (executable == null) {
			problem = name + " is not on the PATH";
			return;
		}
		Result info = run(List.of(executable, "info"), Duration.ofSeconds(15));
		if (info.exitCode != 0) {
			problem = "'" + name + " info' failed (is the daemon running?): " + info.output.strip();
			return;
		}
		Result build = run(List.of("sh", script("build-image.sh"), executable), Duration.ofMinutes(3));
		if (build.exitCode != 0) {
			problem = "the test image could not be built: " + build.output.strip();
			return;
		}
		engine = executable;
	}

	private static @Nullable String onPath(String name) {
		String path = System.getenv("PATH");
		for (String dir : (path != null) ? path.split(":") : new String[0]) {
			Path candidate = Path.of(dir, name);
			if (Files.isExecutable(candidate)) {
				return candidate.toString();
			}
		}
		return null;
	}

	private static String script(String name) {
		URL url = ContainerEngines.class.getResource("/containers/" + name);
		if (url == null) {
			throw new IllegalStateException("No containers/" + name);
		}
		try {
			return Path.of(url.toURI()).toString();
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Return the ids of the containers, running or not, labelled with a test's id.
	 * @param testId the test's id
	 * @return the ids
	 */
	public static List<String> containers(String testId) {
		Result result = run(
				List.of(require(), "ps", "-a", "-q", "--no-trunc", "--filter", "label=" + TEST_LABEL + "=" + testId),
				Duration.ofSeconds(30));
		if (result.exitCode != 0) {
			throw new IllegalStateException("docker ps failed: " + result.output);
		}
		List<String> ids = new ArrayList<>();
		for (String line : result.output.split("\n")) {
			if (line.strip().matches("[0-9a-f]{12,64}")) {
				ids.add(line.strip());
			}
		}
		return ids;
	}

	/**
	 * Assert that no container of a test exists within a bound; any left are removed (by
	 * id) and the test fails.
	 * @param testId the test's id
	 * @param within how long they may take to go
	 */
	public static void assertNoneLeft(String testId, Duration within) {
		List<String> left = Await.within(within)
			.every(Duration.ofMillis(100))
			.value(() -> containers(testId), List::isEmpty);
		if (!left.isEmpty()) {
			removeAll(testId);
			fail("Containers of test " + testId + " still exist after " + within + ": " + left);
		}
	}

	/**
	 * Assert that no container of a test exists within a bound, where the tests of this
	 * JVM found an engine; nothing to check elsewhere.
	 * @param testId the test's id
	 * @param within how long they may take to go
	 */
	public static void assertNoneLeftIfUsed(String testId, Duration within) {
		if (engine != null) {
			assertNoneLeft(testId, within);
		}
	}

	/**
	 * Remove what a failed test left, by id.
	 * @param testId the test's id
	 */
	public static void removeAll(String testId) {
		if (engine == null) {
			return;
		}
		List<String> ids = containers(testId);
		if (!ids.isEmpty()) {
			List<String> command = new ArrayList<>(List.of(require(), "rm", "-f"));
			command.addAll(ids);
			run(command, Duration.ofSeconds(60));
		}
	}

	/**
	 * Run a command to its end, bounded, with stderr in its output.
	 * @param command the command
	 * @param within how long it may take
	 * @return its exit code and output
	 */
	public static Result run(List<String> command, Duration within) {
		try {
			Path output = Files.createTempFile("mcp-stdio-engine", ".out");
			try {
				Process process = new ProcessBuilder(command).redirectErrorStream(true)
					.redirectOutput(output.toFile())
					.start();
				process.getOutputStream().close();
				if (!process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
					process.destroyForcibly();
					return new Result(-1, "timed out after " + within + ": " + command);
				}
				byte[] bytes = Files.readAllBytes(output);
				return new Result(process.exitValue(),
						new String(bytes, 0, Math.min(bytes.length, 64 * 1024), StandardCharsets.UTF_8));
			}
			finally {
				Files.deleteIfExists(output);
			}
		}
		catch (IOException ex) {
			return new Result(-1, ex.getMessage());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return new Result(-1, "interrupted");
		}
	}

	/**
	 * The end of a command.
	 *
	 * @param exitCode its exit code, -1 when it did not run to its end
	 * @param output what it wrote
	 */
	public record Result(int exitCode, String output) {

	}

}

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

import java.nio.file.Files;
import java.nio.file.Path;

import dev.mcpstdio.test.Fixtures;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the configuration tests share: servers, the failure analysis of a context that
 * failed, and a valid server that leaves a file behind when it is ever started, so that a
 * test can prove that no process started at all (not only that none is alive afterwards).
 *
 * @author mcp-stdio authors
 */
final class ConfigurationTestSupport {

	/**
	 * Return the properties of a server that runs the echo fixture, marked for a test.
	 * @param name the server's name, or {@code [name]} for one with a dot
	 * @param fixtures the test's fixtures
	 * @return the properties
	 */
	static String[] echo(String name, Fixtures fixtures) {
		String prefix = "mcp.stdio.servers." + name + ".";
		return new String[] { prefix + "command=sh", prefix + "args[0]=" + Fixtures.script("echo.sh"),
				prefix + "env." + Fixtures.MARKER + "=" + fixtures.id() };
	}

	private ConfigurationTestSupport() {
	}

	/**
	 * Assert that start-up failed with a report naming server, property, problem and
	 * action.
	 * @param context the context
	 * @param server the server's name in the report
	 * @param property the full property name
	 * @param problem text of the problem
	 * @param action text of the action
	 * @return the analysis, for more assertions
	 */
	static FailureAnalysis assertFailure(AssertableApplicationContext context, String server, String property,
			String problem, String action) {
		FailureAnalysis analysis = analyze(context);
		assertThat(analysis.getDescription()).contains("no server was started")
			.contains("Server: " + server + "\n")
			.contains("Property: " + property + "\n")
			.contains(problem);
		assertThat(analysis.getAction()).contains(property + ": ").contains(action);
		return analysis;
	}

	static FailureAnalysis analyze(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		FailureAnalysis analysis = new McpStdioFailureAnalyzer().analyze(context.getStartupFailure());
		assertThat(analysis).as("failure analysis of %s", context.getStartupFailure()).isNotNull();
		return analysis;
	}

	/**
	 * Return the properties of a valid server that creates {@code startedFile} when its
	 * process starts.
	 * @param name the server's name
	 * @param fixtures the test's fixtures
	 * @param startedFile the file it creates
	 * @return the properties
	 */
	static String[] witness(String name, Fixtures fixtures, Path startedFile) {
		String prefix = "mcp.stdio.servers." + name + ".";
		return new String[] { prefix + "command=sh", prefix + "args[0]=-c",
				prefix + "args[1]=touch '" + startedFile + "'; exec sh '" + Fixtures.script("echo.sh") + "'",
				prefix + "env." + Fixtures.MARKER + "=" + fixtures.id() };
	}

	/**
	 * Assert that the witness server never started.
	 * @param startedFile its file
	 */
	static void assertNeverStarted(Path startedFile) {
		assertThat(Files.exists(startedFile)).as("a process was started: %s exists", startedFile).isFalse();
	}

}

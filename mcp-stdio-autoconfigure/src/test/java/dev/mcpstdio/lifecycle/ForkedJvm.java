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

package dev.mcpstdio.lifecycle;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.test.Fixtures;

/**
 * A JVM forked by a test with the same JDK and the test classpath; its output is kept
 * (bounded) and the first line with a given prefix is handed out.
 *
 * @author mcp-stdio authors
 */
public final class ForkedJvm implements AutoCloseable {

	private static final int MAX_KEPT_LINES = 2000;

	private final Process process;

	private final List<String> output = new ArrayList<>();

	private final CompletableFuture<String> marked = new CompletableFuture<>();

	private final Thread reader;

	private ForkedJvm(Process process, String prefix) {
		this.process = process;
		this.reader = new Thread(() -> read(prefix), "forked-jvm-output");
		this.reader.setDaemon(true);
		this.reader.start();
	}

	public static ForkedJvm start(String mainClass, String linePrefix, List<String> args) throws IOException {
		List<String> command = new ArrayList<>(Fixtures.java(mainClass));
		// before the main class: a heap of its own size
		command.add(1, "-Xmx256m");
		command.addAll(args);
		return new ForkedJvm(new ProcessBuilder(command).redirectErrorStream(true).start(), linePrefix);
	}

	/**
	 * Start a JVM from a command of its own, such as an application processed ahead of
	 * time ({@link dev.mcpstdio.test.AheadOfTime#java}).
	 * @param command the command
	 * @param linePrefix the line {@link #awaitLine} waits for
	 * @return the JVM
	 * @throws IOException when it cannot start
	 */
	public static ForkedJvm start(List<String> command, String linePrefix) throws IOException {
		return start(command, Map.of(), linePrefix);
	}

	/**
	 * Start a JVM from a command of its own, with variables added to its environment.
	 * @param command the command
	 * @param environment the variables added to this JVM's environment
	 * @param linePrefix the line {@link #awaitLine} waits for
	 * @return the JVM
	 * @throws IOException when it cannot start
	 */
	public static ForkedJvm start(List<String> command, Map<String, String> environment, String linePrefix)
			throws IOException {
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
		builder.environment().putAll(environment);
		return new ForkedJvm(builder.start(), linePrefix);
	}

	private void read(String prefix) {
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = reader.readLine()) != null) {
				synchronized (this.output) {
					if (this.output.size() < MAX_KEPT_LINES) {
						this.output.add(line);
					}
				}
				if (line.startsWith(prefix)) {
					this.marked.complete(line);
				}
			}
		}
		catch (IOException ex) {
			// the process ended
		}
		this.marked.completeExceptionally(new IllegalStateException(
				"Forked JVM ended before it printed " + prefix + "; its output:\n" + String.join("\n", output())));
	}

	public String awaitLine(Duration timeout) throws Exception {
		return this.marked.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
	}

	public Process process() {
		return this.process;
	}

	public List<String> output() {
		synchronized (this.output) {
			return List.copyOf(this.output);
		}
	}

	public int awaitExit(Duration timeout) throws InterruptedException {
		if (!this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
			throw new IllegalStateException(
					"Forked JVM did not exit within " + timeout + "; its output:\n" + String.join("\n", output()));
		}
		// the last lines (those of the shutdown) may still be on their way
		this.reader.join(5000);
		return this.process.exitValue();
	}

	@Override
	public void close() {
		if (this.process.isAlive()) {
			this.process.destroyForcibly();
		}
	}

}

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

package dev.mcpstdio.core.containment;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs one call of a container engine's command-line interface, bounded in time and in
 * output: past its timeout the call is killed, and at most {@value #MAX_OUTPUT} bytes of
 * each stream are kept.
 *
 * @author mcp-stdio authors
 */
final class EngineCommand {

	static final int MAX_OUTPUT = 256 * 1024;

	/** Reads the streams of engine calls; a call has two, and calls are few. */
	private static final Executor readers = (runnable) -> {
		Thread thread = new Thread(runnable, "mcp-stdio-engine-output");
		thread.setDaemon(true);
		thread.start();
	};

	private EngineCommand() {
	}

	/**
	 * Run a command and wait, bounded, for its end and its output.
	 * @param command the command and its arguments
	 * @param environment its whole environment
	 * @param timeout how long it may take
	 * @return what it did
	 */
	static Output run(List<String> command, Map<String, String> environment, Duration timeout) {
		ProcessBuilder builder = new ProcessBuilder(command);
		builder.environment().clear();
		builder.environment().putAll(environment);
		Process process;
		try {
			process = builder.start();
			process.getOutputStream().close();
		}
		catch (IOException ex) {
			return new Output(-1, "", "could not run " + command.get(0) + ": " + ex.getMessage(), false);
		}
		CompletableFuture<String> stdout = CompletableFuture.supplyAsync(() -> read(process.getInputStream()), readers);
		CompletableFuture<String> stderr = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()), readers);
		boolean exited;
		try {
			exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			exited = false;
		}
		if (!exited) {
			// killing it closes its pipes, which ends the reads
			process.destroyForcibly();
		}
		String out = await(stdout);
		String err = await(stderr);
		if (!exited) {
			return new Output(-1, out, err, true);
		}
		return new Output(process.exitValue(), out, err, false);
	}

	private static String read(InputStream in) {
		try (in) {
			byte[] bytes = in.readNBytes(MAX_OUTPUT);
			// drain the rest so that the command never blocks on a full pipe
			in.transferTo(OutputStream.nullOutputStream());
			return new String(bytes, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			return "";
		}
	}

	private static String await(CompletableFuture<String> read) {
		try {
			return read.get(2, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "";
		}
		catch (ExecutionException | TimeoutException ex) {
			// a grandchild that keeps the pipe open: give up on the rest
			return "";
		}
	}

	/**
	 * The end of one call.
	 *
	 * @param exitCode its exit code, -1 when it could not run or timed out
	 * @param stdout what it wrote to stdout, at most {@value #MAX_OUTPUT} bytes
	 * @param stderr what it wrote to stderr, at most {@value #MAX_OUTPUT} bytes
	 * @param timedOut whether it was killed for taking too long
	 */
	record Output(int exitCode, String stdout, String stderr, boolean timedOut) {

		boolean ok() {
			return this.exitCode == 0;
		}

		List<String> lines() {
			List<String> lines = new ArrayList<>();
			for (String line : this.stdout.split("\n")) {
				if (!line.isBlank()) {
					lines.add(line.strip());
				}
			}
			return lines;
		}

		/** Whether the engine said that the container does not exist (any more). */
		boolean noSuchContainer() {
			String text = this.stderr.toLowerCase(Locale.ROOT);
			return text.contains("no such container") || text.contains("no such object")
					|| text.contains("no container with name or id");
		}

		/** Whether the engine said that the container is not running (any more). */
		boolean notRunning() {
			String text = this.stderr.toLowerCase(Locale.ROOT);
			// docker: "... is not running"; podman: "can only kill running containers"
			return text.contains("not running") || text.contains("can only kill running")
					|| text.contains("state improper");
		}

		String error() {
			String text = this.stderr.strip();
			if (this.timedOut) {
				return "timed out" + (text.isEmpty() ? "" : ": " + text);
			}
			return text.isEmpty() ? "exit code " + this.exitCode : text;
		}

	}

}

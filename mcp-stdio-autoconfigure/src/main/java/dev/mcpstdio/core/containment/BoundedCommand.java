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
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import dev.mcpstdio.core.support.Threads;
import dev.mcpstdio.core.support.Waits;
import org.jspecify.annotations.Nullable;

/**
 * One call of a command, bounded in time and output: a container engine's, a probe of the
 * sandbox or of cgroups.
 *
 * @author mcp-stdio authors
 */
final class BoundedCommand {

	/** At most this many bytes of each stream of a call are kept. */
	static final int MAX_OUTPUT = 256 * 1024;

	/** Reads the streams of calls; a call has two, and calls are few. */
	private static final Executor readers = (runnable) -> Threads.daemon(runnable, "mcp-stdio-engine-output").start();

	private BoundedCommand() {
	}

	/**
	 * Run a command, bounded: past {@code within} it is killed, and at most
	 * {@value #MAX_OUTPUT} bytes of each stream are kept.
	 * @param command the command
	 * @param environment its whole environment, or {@code null} for the JVM's
	 * @param within how long it may take
	 * @return how it ended
	 */
	static CommandOutput run(List<String> command, @Nullable Map<String, String> environment, Duration within) {
		ProcessBuilder builder = new ProcessBuilder(command);
		if (environment != null) {
			builder.environment().clear();
			builder.environment().putAll(environment);
		}
		Process process;
		try {
			process = builder.start();
			process.getOutputStream().close();
		}
		catch (IOException ex) {
			return new CommandOutput(-1, "", "could not run " + command.get(0) + ": " + ex.getMessage(), false);
		}
		CompletableFuture<String> stdout = CompletableFuture.supplyAsync(() -> read(process.getInputStream()), readers);
		CompletableFuture<String> stderr = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()), readers);
		boolean exited = Waits.await(process, within.toMillis());
		if (!exited) {
			// killing it closes its pipes, which ends the reads
			process.destroyForcibly();
		}
		return new CommandOutput(exited ? process.exitValue() : -1, await(stdout), await(stderr), !exited);
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
		// a grandchild that keeps the pipe open: give up on the rest
		return Objects.requireNonNullElse(Waits.awaitOrNull(read, 2000), "");
	}

}

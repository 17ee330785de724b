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
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

import dev.mcpstdio.McpStdioException;
import org.jspecify.annotations.Nullable;

/**
 * The seccomp programs of this JVM's sandboxes, each written once to a file of a private
 * directory: the orphan guard's, which its watcher removes once the JVM is gone, else one
 * of their own, removed when the JVM exits.
 *
 * @author mcp-stdio authors
 */
final class SeccompPrograms {

	private final Supplier<@Nullable Path> guardDirectory;

	/** The files written, by whether they refuse Unix sockets; guarded by this. */
	private final Map<Boolean, Path> files = new HashMap<>();

	SeccompPrograms(Supplier<@Nullable Path> guardDirectory) {
		this.guardDirectory = guardDirectory;
	}

	/**
	 * Return the file of the program, written on first use.
	 * @param server the server that needs it, for a failure
	 * @param refuseUnixSockets whether the program refuses {@code socket(AF_UNIX, ...)}
	 * @return the file, only this user's to read
	 * @throws McpStdioException where there is no filter for this machine, or it cannot
	 * be written
	 */
	synchronized Path file(String server, boolean refuseUnixSockets) {
		Path file = this.files.get(refuseUnixSockets);
		if (file != null && Files.isRegularFile(file)) {
			return file;
		}
		SeccompFilter filter = SeccompFilter.ofThisMachine();
		if (filter == null) {
			throw new McpStdioException(server,
					"Could not start " + McpStdioException.describe(server) + ": its sandbox has no "
							+ "seccomp filter for this machine's architecture (" + System.getProperty("os.arch")
							+ "; x86_64 and aarch64 have one); a sandboxed server never runs without its sandbox");
		}
		try {
			Path directory = this.guardDirectory.get();
			if (directory == null || !Files.isDirectory(directory)) {
				directory = Files.createTempDirectory("mcp-stdio-sandbox-",
						PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
				directory.toFile().deleteOnExit();
			}
			file = directory.resolve(refuseUnixSockets ? "seccomp-no-unix.bpf" : "seccomp.bpf");
			Files.deleteIfExists(file);
			Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
			file.toFile().deleteOnExit();
			Files.write(file, filter.program(refuseUnixSockets));
		}
		catch (IOException | UncheckedIOException | UnsupportedOperationException ex) {
			throw new McpStdioException(server,
					"Could not start " + McpStdioException.describe(server)
							+ ": its sandbox's seccomp program could not be written: " + ex.getMessage()
							+ "; a sandboxed server never runs without its sandbox",
					ex);
		}
		this.files.put(refuseUnixSockets, file);
		return file;
	}

}

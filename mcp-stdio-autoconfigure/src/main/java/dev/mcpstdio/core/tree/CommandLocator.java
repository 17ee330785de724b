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

package dev.mcpstdio.core.tree;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Finds a server's executable as a shell would, before anything starts.
 *
 * @author mcp-stdio authors
 */
public final class CommandLocator {

	private static final List<String> WINDOWS_EXTENSIONS = List.of("", ".exe", ".cmd", ".bat", ".com");

	private CommandLocator() {
	}

	/**
	 * Resolve a command to an executable file.
	 * @param command the command, a path or a name looked up in {@code PATH}
	 * @param path the {@code PATH} value to search, or {@code null}
	 * @param workingDirectory the directory a relative path is resolved against
	 * @return the executable
	 * @throws CommandNotFoundException when there is no such executable
	 */
	public static Path locate(String command, @Nullable String path, @Nullable Path workingDirectory) {
		if (command.isBlank()) {
			throw new CommandNotFoundException(command, "the command is empty");
		}
		if (command.contains("/") || command.contains(File.separator)) {
			Path file = Path.of(command);
			if (!file.isAbsolute() && workingDirectory != null) {
				file = workingDirectory.resolve(file);
			}
			if (!Files.exists(file)) {
				throw new CommandNotFoundException(command, "no such file: " + file.toAbsolutePath());
			}
			if (Files.isDirectory(file) || !Files.isExecutable(file)) {
				throw new CommandNotFoundException(command, file.toAbsolutePath() + " is not an executable file");
			}
			return file.toAbsolutePath();
		}
		for (String dir : (path != null) ? path.split(File.pathSeparator) : new String[0]) {
			for (String extension : Platform.current().isWindows() ? WINDOWS_EXTENSIONS : List.of("")) {
				Path candidate = Path.of(dir, command + extension);
				if (!dir.isEmpty() && Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
					return candidate.toAbsolutePath();
				}
			}
		}
		throw new CommandNotFoundException(command, "not found in PATH (" + ((path != null) ? path : "unset") + ")");
	}

	/**
	 * Return the {@code PATH} a server will search, from its environment.
	 * @param env the server's environment
	 * @return the value or {@code null}
	 */
	public static @Nullable String pathOf(Map<String, String> env) {
		for (Map.Entry<String, String> entry : env.entrySet()) {
			if (entry.getKey().toUpperCase(Locale.ROOT).equals("PATH")) {
				return entry.getValue();
			}
		}
		return null;
	}

	/**
	 * Thrown when a server's command does not name an executable.
	 */
	public static final class CommandNotFoundException extends RuntimeException {

		CommandNotFoundException(String command, String reason) {
			super("Command '" + command + "' cannot be run: " + reason);
		}

	}

}

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
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * The scripts the orphan guard's watcher runs once the JVM is gone, for what its process
 * scan cannot end (containers, cgroups): their texts beside this class, their files in a
 * directory of this user's only.
 *
 * @author mcp-stdio authors
 */
final class ReaperScripts {

	/** The scripts written so far, by name; guarded by this object. */
	private final Map<String, String> written = new HashMap<>();

	/** Where the scripts (and cidfiles) go; guarded by this object. */
	private @Nullable Path directory;

	/**
	 * Return a script beside this class.
	 * @param name its file name
	 * @return its text
	 */
	static String resource(String name) {
		try (InputStream in = ReaperScripts.class.getResourceAsStream(name)) {
			if (in == null) {
				throw new IllegalStateException(name + " is missing beside " + ReaperScripts.class.getName());
			}
			return new String(in.readNBytes(64 * 1024), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static String quote(String word) {
		return "'" + word.replace("'", "'\\''") + "'";
	}

	/**
	 * Write a script, rewritten in place when it changed.
	 * @param name its name, such as {@code containers}
	 * @param script its text
	 * @return its file, or {@code null} when it was written as it is already
	 * @throws IOException if it cannot be written
	 */
	synchronized @Nullable Path write(String name, String script) throws IOException {
		if (script.equals(this.written.get(name))) {
			return null;
		}
		Path file = makeDirectory().resolve(name + ".sh");
		Path temporary = file.resolveSibling(name + ".sh.tmp");
		Files.writeString(temporary, script, StandardCharsets.UTF_8);
		Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rwx------"));
		Path moved = Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
		this.written.put(name, script);
		return moved;
	}

	/**
	 * Return the directory of the scripts, where cidfiles of containers go too: the
	 * watcher removes what is left in it once it ran the scripts.
	 * @return the directory, or {@code null} when it cannot be made
	 */
	synchronized @Nullable Path directory() {
		try {
			return makeDirectory();
		}
		catch (IOException ex) {
			return null;
		}
	}

	/** A directory of this user's only (created so on POSIX), once per guard. */
	private Path makeDirectory() throws IOException {
		if (this.directory == null) {
			this.directory = Files.createTempDirectory("mcp-stdio-guard-");
		}
		return this.directory;
	}

	/**
	 * Delete the scripts, and their directory unless a container's cidfile is still in
	 * it.
	 */
	synchronized void delete() {
		if (this.directory != null) {
			try {
				for (String name : this.written.keySet()) {
					Files.deleteIfExists(this.directory.resolve(name + ".sh"));
				}
				Files.deleteIfExists(this.directory);
			}
			catch (IOException ex) {
				// not empty, or left for the temporary directory's own cleaning
			}
		}
	}

}

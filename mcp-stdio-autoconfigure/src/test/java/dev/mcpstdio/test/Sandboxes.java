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
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Whether bubblewrap can sandbox here, for the sandbox tests; CI requires it.
 *
 * @author mcp-stdio authors
 */
public final class Sandboxes {

	/** Set (CI sets it) to fail instead of skip where bubblewrap cannot sandbox. */
	public static final String REQUIRE = "MCP_STDIO_REQUIRE_SANDBOX";

	/** The user a sandboxed server runs as when the application is root. */
	public static final int SERVER_UID = 65534;

	/** Whether the tests run as root, as in CI: a sandboxed server then runs as 65534. */
	public static final boolean ROOT = uid() == 0;

	private static volatile @Nullable String problem;

	private Sandboxes() {
	}

	/**
	 * Skip the test where {@code bwrap} is missing or cannot create its namespaces, or
	 * fail it where {@value #REQUIRE} is set.
	 */
	public static synchronized void assume() {
		if (problem == null) {
			problem = probe();
		}
		if (!problem.isEmpty()) {
			String required = System.getenv(REQUIRE);
			if (required != null && !required.isBlank()) {
				fail("bubblewrap is required here (" + REQUIRE + "): " + problem);
			}
			assumeTrue(false, "no sandbox for the sandbox tests: " + problem);
		}
	}

	/**
	 * Let a sandboxed server write a directory the test made: where the tests run as
	 * root, the server runs as {@value #SERVER_UID}, which the directory must let in.
	 * @param directory the directory
	 * @return the directory
	 */
	public static Path writable(Path directory) {
		return permit(directory, "rwxrwxrwx");
	}

	/**
	 * Let a sandboxed server read a directory the test made (see {@link #writable}).
	 * @param directory the directory
	 * @return the directory
	 */
	public static Path readable(Path directory) {
		return permit(directory, "rwxr-xr-x");
	}

	private static Path permit(Path directory, String permissions) {
		try {
			Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString(permissions));
			return directory;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Return the entries of this JVM's class path that a sandbox hides: those under the
	 * home directory (a local Maven repository's jars) or {@code /tmp} (a checkout
	 * there), which a sandboxed Java server lists. Each entry itself: where the tests run
	 * as root the server's user may read the jars, but neither root's {@code 0700} home
	 * nor a repository's {@code 0750} directories; the sandbox makes the directories on
	 * the way to a listed path its own.
	 * @return the entries, in class path order
	 */
	public static List<Path> hiddenClassPath() {
		Path home = Path.of(System.getProperty("user.home")).toAbsolutePath();
		Path tmp = Path.of("/tmp");
		return Stream.of(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
			.map((entry) -> Path.of(entry).toAbsolutePath().normalize())
			.filter((path) -> (path.startsWith(home) || path.startsWith(tmp)) && Files.exists(path))
			.distinct()
			.toList();
	}

	private static long uid() {
		try {
			return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
		}
		catch (IOException | UnsupportedOperationException ex) {
			return -1;
		}
	}

	private static String probe() {
		List<String> command = List.of("bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
				"--unshare-net", "--unshare-pid", "--die-with-parent", "--cap-drop", "ALL", "true");
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			if (!process.waitFor(10, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				return String.join(" ", command) + " did not end within 10s";
			}
			try (InputStream out = process.getInputStream()) {
				String said = new String(out.readNBytes(1000), StandardCharsets.UTF_8).strip();
				return (process.exitValue() == 0) ? "" : String.join(" ", command) + " failed: " + said;
			}
		}
		catch (IOException ex) {
			return "bwrap cannot run: " + ex.getMessage();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "interrupted";
		}
	}

}

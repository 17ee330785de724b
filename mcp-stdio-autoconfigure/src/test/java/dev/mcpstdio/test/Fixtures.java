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
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.mcpstdio.core.ShutdownTimeouts;
import dev.mcpstdio.core.StdioServerSpec;

import static org.assertj.core.api.Assertions.fail;

/**
 * Fixture servers for tests, each process marked with {@value #MARKER} so that a test can
 * prove it left nothing behind. Kills only the processes that carry its own marker.
 *
 * @author mcp-stdio authors
 */
public final class Fixtures {

	/** The environment variable that marks every process a test starts. */
	public static final String MARKER = "MCP_STDIO_TEST";

	/** Short shutdown bounds so that escalation tests run fast. */
	public static final ShutdownTimeouts FAST = new ShutdownTimeouts(Duration.ofMillis(500), Duration.ofMillis(400),
			Duration.ofMillis(400));

	private final String id = "t-" + UUID.randomUUID();

	public String id() {
		return this.id;
	}

	/**
	 * Return the absolute path of a fixture script.
	 * @param script the file name under {@code fixtures/}
	 * @return its path
	 */
	public static String script(String script) {
		URL url = Fixtures.class.getResource("/fixtures/" + script);
		if (url == null) {
			throw new IllegalArgumentException("No fixture " + script);
		}
		try {
			return Path.of(url.toURI()).toString();
		}
		catch (URISyntaxException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Return a spec that runs a fixture script with {@code sh}, marked for this test.
	 * @param name the server name
	 * @param script the script
	 * @return the spec
	 */
	public StdioServerSpec spec(String name, String script) {
		return StdioServerSpec.of(name, "sh", script(script)).withEnv(Map.of(MARKER, this.id)).withShutdown(FAST);
	}

	/**
	 * Return the pids of the live processes that carry this test's marker.
	 * @return the pids
	 */
	public List<Long> alive() {
		return alive(this.id);
	}

	public static List<Long> alive(String markerValue) {
		byte[] needle = (MARKER + "=" + markerValue).getBytes(StandardCharsets.UTF_8);
		// A process caught in exec shows an empty environment: look again until every
		// user process could be read (bounded), so that none is missed
		for (int attempt = 0;; attempt++) {
			List<Long> pids = new ArrayList<>();
			int unread = scan(needle, pids);
			if (unread == 0 || attempt == 20) {
				return pids;
			}
			sleep(5);
		}
	}

	private static int scan(byte[] needle, List<Long> pids) {
		int unread = 0;
		try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"))) {
			for (Path dir : dirs) {
				String name = dir.getFileName().toString();
				if (!name.chars().allMatch(Character::isDigit) || isZombie(dir) || isKernelThread(dir)) {
					continue;
				}
				try (InputStream in = Files.newInputStream(dir.resolve("environ"))) {
					byte[] env = in.readNBytes(1024 * 1024);
					if (env.length == 0) {
						unread++;
					}
					else if (contains(env, needle)) {
						pids.add(Long.parseLong(name));
					}
				}
				catch (IOException ex) {
					// gone or not ours
				}
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		return unread;
	}

	private static boolean isKernelThread(Path dir) {
		try {
			String stat = Files.readString(dir.resolve("stat"));
			String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
			return fields[1].equals("2") || dir.getFileName().toString().equals("2");
		}
		catch (IOException | RuntimeException ex) {
			return true;
		}
	}

	/**
	 * Return whether a process runs: it exists and is not a zombie waiting to be reaped
	 * (which {@link ProcessHandle#isAlive()} counts as alive).
	 * @param pid the process
	 * @return whether it is alive
	 */
	public static boolean isLive(long pid) {
		return !isZombie(Path.of("/proc", Long.toString(pid)));
	}

	private static boolean isZombie(Path dir) {
		try {
			String stat = Files.readString(dir.resolve("stat"));
			int close = stat.lastIndexOf(')');
			char state = stat.charAt(close + 2);
			return state == 'Z' || state == 'X';
		}
		catch (IOException | RuntimeException ex) {
			return true;
		}
	}

	private static boolean contains(byte[] env, byte[] needle) {
		int start = 0;
		for (int i = 0; i <= env.length; i++) {
			if (i == env.length || env[i] == 0) {
				if (i - start == needle.length) {
					boolean same = true;
					for (int j = 0; j < needle.length && same; j++) {
						same = env[start + j] == needle[j];
					}
					if (same) {
						return true;
					}
				}
				start = i + 1;
			}
		}
		return false;
	}

	/**
	 * Assert that no process with this test's marker is alive within a bound; any found
	 * after it are killed (by pid) and the test fails.
	 * @param within how long they may take to vanish
	 */
	public void assertNoneAlive(Duration within) {
		assertNoneAlive(this.id, within);
	}

	public static void assertNoneAlive(String markerValue, Duration within) {
		long deadline = System.nanoTime() + within.toNanos();
		List<Long> left = aliveTwice(markerValue);
		while (!left.isEmpty() && System.nanoTime() < deadline) {
			sleep(20);
			left = aliveTwice(markerValue);
		}
		if (!left.isEmpty()) {
			List<String> described = new ArrayList<>();
			for (long pid : left) {
				described.add(pid + " " + ProcessHandle.of(pid).flatMap((h) -> h.info().commandLine()).orElse("?"));
				ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
			}
			fail("Processes of test " + markerValue + " still alive after " + within + ": " + described);
		}
	}

	/**
	 * Look twice, 50 ms apart, when the first look finds nothing: a child forked by a
	 * dying parent can slip between one scan's directory reads.
	 */
	private static List<Long> aliveTwice(String markerValue) {
		List<Long> left = alive(markerValue);
		if (left.isEmpty()) {
			sleep(50);
			left = alive(markerValue);
		}
		return left;
	}

	/** Kill what a failed test left, by pid, so that it does not disturb the next. */
	public void killLeftovers() {
		for (long pid : alive()) {
			ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
		}
	}

	public static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}

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
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.server.ShutdownTimeouts;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.core.tree.ProcessMarkers;
import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;
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

	/**
	 * Options of the JVMs that tests fork: C1 only and the serial collector, so that they
	 * start sooner and cost less CPU.
	 */
	public static final List<String> JVM_OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

	private static Path directory;

	private final String id = "t-" + UUID.randomUUID();

	private volatile boolean labelledContainers;

	public String id() {
		return this.id;
	}

	/**
	 * Return the label ({@code name=value}) of this test's containers, by which they are
	 * found and removed; the test is then checked for containers left, too.
	 * @return the label
	 */
	public String containerLabel() {
		this.labelledContainers = true;
		return ContainerEngines.TEST_LABEL + "=" + this.id;
	}

	/**
	 * Return whether this test labelled containers.
	 * @return whether it did
	 */
	public boolean labelledContainers() {
		return this.labelledContainers;
	}

	/**
	 * Return the command that runs a main class of the tests in a JVM of its own: this
	 * JVM's {@code java}, {@link #JVM_OPTIONS} and class path.
	 * @param mainClass the main class
	 * @param args its arguments
	 * @return the command
	 */
	public static List<String> java(String mainClass, String... args) {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.addAll(JVM_OPTIONS);
		command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
		command.addAll(List.of(args));
		return command;
	}

	/**
	 * Return the absolute path of a fixture script.
	 * @param script the file name under {@code fixtures/}
	 * @return its path
	 */
	public static String script(String script) {
		Path path = directory().resolve(script);
		if (!Files.isRegularFile(path)) {
			throw new IllegalArgumentException("No fixture " + script);
		}
		return path.toString();
	}

	/**
	 * Return the directory of the fixture scripts: where the test classes are, or, when
	 * they run from a jar (the bench module runs them so), a copy in a temporary
	 * directory, since a script is run by its path.
	 */
	private static synchronized Path directory() {
		if (directory == null) {
			URL url = Fixtures.class.getResource("/fixtures/lib.sh");
			if (url == null) {
				throw new IllegalStateException("No fixtures on the class path");
			}
			try {
				directory = "file".equals(url.getProtocol()) ? Path.of(url.toURI()).getParent() : copyOut(url);
			}
			catch (URISyntaxException | IOException ex) {
				throw new IllegalStateException(ex);
			}
		}
		return directory;
	}

	private static Path copyOut(URL url) throws URISyntaxException, IOException {
		Path copy = Files.createTempDirectory("mcp-stdio-fixtures").resolve("fixtures");
		Files.createDirectories(copy);
		try (FileSystem jar = FileSystems.newFileSystem(url.toURI(), Map.of());
				Stream<Path> scripts = Files.list(jar.getPath("/fixtures"))) {
			for (Path script : scripts.toList()) {
				Files.copy(script, copy.resolve(script.getFileName().toString()));
			}
		}
		return copy;
	}

	/**
	 * Return the pids of every fixture process that was started with this test's marker,
	 * alive or not: each one that sources {@code fixtures/lib.sh} leaves a trace as it
	 * starts.
	 * @return the pids, in the order they started
	 */
	public List<Long> started() {
		Path trace = directory().resolveSibling("started").resolve(this.id);
		try {
			return Files.readAllLines(trace).stream().map(String::trim).map(Long::valueOf).toList();
		}
		catch (NoSuchFileException ex) {
			return List.of();
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Assert that no fixture process with this test's marker was ever started, not only
	 * that none is alive now.
	 */
	public void assertNeverStarted() {
		assertThat(started()).as("fixture processes started with marker %s", this.id).isEmpty();
		assertThat(alive()).as("processes alive with marker %s", this.id).isEmpty();
	}

	/**
	 * Return a spec that runs a fixture script with {@code sh}, marked for this test.
	 * @param name the server name
	 * @param script the script
	 * @return the spec
	 */
	public StdioServerSpec spec(String name, String script) {
		return SpecDefaults.of(name, "sh", script(script)).withEnv(Map.of(MARKER, this.id)).withShutdown(FAST);
	}

	/**
	 * Return a fixture server with arguments, marked with this test's marker and with
	 * short shutdown bounds.
	 * @param name the server name
	 * @param script the file name under {@code fixtures/}
	 * @param args its arguments
	 * @return the spec
	 */
	public StdioServerSpec spec(String name, String script, String... args) {
		List<String> command = new ArrayList<>();
		command.add(script(script));
		command.addAll(List.of(args));
		return SpecDefaults.of(name, "sh", command.toArray(String[]::new))
			.withEnv(Map.of(MARKER, this.id))
			.withShutdown(FAST);
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

	/**
	 * Return whether a process runs: the very process of the handle (by its start time),
	 * not a zombie waiting to be reaped.
	 * @param handle the process
	 * @return whether it is alive
	 */
	public static boolean isLive(ProcessHandle handle) {
		return handle.isAlive() && isLive(handle.pid());
	}

	/**
	 * Wait, bounded, until a process has children, and return them as handles: each knows
	 * its start time, so that a reused pid is not taken for it.
	 * @param pid the process
	 * @param count how many children to wait for
	 * @return its children
	 */
	public static List<ProcessHandle> childrenOf(long pid, int count) {
		Await.that("the children of " + pid + " started",
				() -> ProcessHandle.of(pid).map((h) -> h.children().count() >= count).orElse(false));
		return ProcessHandle.of(pid).orElseThrow().children().toList();
	}

	/**
	 * Wait, bounded, until processes ended: gone, or zombies that only wait for their
	 * reaper (on some machines PID 1 reaps orphans only every second or two).
	 * @param processes the processes
	 */
	public static void awaitEnded(List<ProcessHandle> processes) {
		Await.that("the processes " + processes + " ended", () -> processes.stream().noneMatch(Fixtures::isLive));
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
		List<Long> left = Await.within(within)
			.every(Duration.ofMillis(20))
			.value(() -> aliveTwice(markerValue), List::isEmpty);
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

	/**
	 * Apply a cleanup step to each item, whatever fails on the way: a stop that throws
	 * does not skip the others. The first failure is rethrown, the others added to it.
	 * @param <T> the items' type
	 * @param items what to clean up
	 * @param step what to do with each
	 */
	public static <T> void cleanUp(Iterable<T> items, Consumer<T> step) {
		cleanUp(items, step, () -> {
		});
	}

	/**
	 * Apply a cleanup step to each item, then run the last step, whatever fails on the
	 * way: a stop that throws does not skip the others or the check that follows. The
	 * first failure is rethrown, the others added to it.
	 * @param <T> the items' type
	 * @param items what to clean up
	 * @param step what to do with each
	 * @param last what to do at the end, such as asserting that nothing is left
	 */
	public static <T> void cleanUp(Iterable<T> items, Consumer<T> step, Runnable last) {
		RuntimeException failure = null;
		for (T item : items) {
			try {
				step.accept(item);
			}
			catch (RuntimeException ex) {
				failure = add(failure, ex);
			}
		}
		try {
			last.run();
		}
		catch (RuntimeException | AssertionError ex) {
			if (failure == null) {
				throw ex;
			}
			failure.addSuppressed(ex);
		}
		if (failure != null) {
			throw failure;
		}
	}

	private static RuntimeException add(RuntimeException first, RuntimeException next) {
		if (first == null) {
			return next;
		}
		first.addSuppressed(next);
		return first;
	}

	/**
	 * Start a program marked with this test's marker, its output discarded.
	 * @param command the program and its arguments
	 * @return the process, for the test to end
	 * @throws IOException if it cannot start
	 */
	public Process start(String... command) throws IOException {
		ProcessBuilder builder = new ProcessBuilder(command);
		builder.environment().put(MARKER, this.id);
		builder.redirectOutput(ProcessBuilder.Redirect.DISCARD);
		builder.redirectError(ProcessBuilder.Redirect.DISCARD);
		return builder.start();
	}

	/**
	 * Leave a marked process whose owner is gone.
	 * @param ignored the signal it ignores
	 * @param application the application it names
	 * @return its pid
	 */
	public long leftover(String ignored, String application) throws IOException, InterruptedException {
		return leftover(new ProcessBuilder("sh", Fixtures.script("leftover.sh"), ignored, application));
	}

	/**
	 * Leave a marked process whose owner is gone and that takes up to two seconds to end
	 * after SIGTERM.
	 * @param application the application it names
	 * @return its pid
	 */
	public long slowLeftover(String application) throws IOException, InterruptedException {
		return leftover(new ProcessBuilder("sh", Fixtures.script("slow-leftover.sh"), application));
	}

	private long leftover(ProcessBuilder builder) throws IOException, InterruptedException {
		builder.environment().put(MARKER, this.id);
		builder.redirectError(ProcessBuilder.Redirect.DISCARD);
		Process shell = builder.start();
		String out = new String(shell.getInputStream().readNBytes(64), StandardCharsets.US_ASCII).trim();
		assertThat(shell.waitFor(5, TimeUnit.SECONDS)).isTrue();
		long pid = Long.parseLong(out);
		awaitMarked(pid);
		// Its loop runs (so its trap is set) once it has had a child
		Await.within(Duration.ofSeconds(5))
			.until("the loop of " + pid + " running",
					() -> ProcessHandle.of(pid).map((h) -> h.children().findAny().isPresent()).orElse(false));
		return pid;
	}

	/**
	 * Wait, bounded, until a process shows mcp-stdio markers.
	 * @param pid the process
	 */
	public static void awaitMarked(long pid) {
		Await.within(Duration.ofSeconds(5)).until("markers of " + pid, () -> markers(pid) != null);
	}

	/**
	 * Read the mcp-stdio markers of a process from its environment.
	 * @param pid the process
	 * @return its markers, or {@code null} when it has none or they cannot be read
	 */
	public static @Nullable ProcessMarkers markers(long pid) {
		try {
			byte[] environ = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ"));
			return ProcessMarkers.parse(environ, environ.length);
		}
		catch (IOException ex) {
			return null;
		}
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

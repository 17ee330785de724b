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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.core.server.MessageListener;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.core.tree.Platform;
import dev.mcpstdio.core.tree.ProcessMarkers;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link OrphanGuard} with forked JVMs whose server ignores stdin EOF and
 * SIGTERM.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class OrphanGuardTests {

	static final long STDIN_CLOSE_MILLIS = 1000;

	static final long TERMINATE_MILLIS = 1000;

	/** The guarantee: {@code stdin-close-timeout + terminate-timeout + 1s}. */
	static final Duration BOUND = Duration.ofMillis(STDIN_CLOSE_MILLIS + TERMINATE_MILLIS).plusSeconds(1);

	private final Fixtures fixtures;

	private final List<GuardedJvm> jvms = new ArrayList<>();

	OrphanGuardTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@AfterEach
	void cleanUp() {
		Fixtures.cleanUp(this.jvms, GuardedJvm::close);
	}

	@Test
	void killMinus9OfTheJvmLeavesNoServerProcess() throws Exception {
		GuardedJvm forked = fork();
		forked.jvm().destroyForcibly();
		Duration took = awaitNoneAlive();
		assertThat(took).isLessThanOrEqualTo(BOUND);
		assertGuardExited(forked.guardPid());
	}

	@Test
	void haltOfTheJvmLeavesNoServerProcess() throws Exception {
		GuardedJvm forked = fork();
		forked.command("halt");
		assertThat(forked.jvm().waitFor(10, TimeUnit.SECONDS)).isTrue();
		assertThat(forked.jvm().exitValue()).isEqualTo(3);
		Duration took = awaitNoneAlive();
		assertThat(took).isLessThanOrEqualTo(BOUND);
		assertGuardExited(forked.guardPid());
	}

	@Test
	void normalExitAfterStopLeavesNothingAndTheGuardGoes() throws Exception {
		GuardedJvm forked = fork();
		forked.command("stop");
		assertThat(forked.jvm().waitFor(20, TimeUnit.SECONDS)).isTrue();
		assertThat(forked.jvm().exitValue()).isEqualTo(0);
		assertThat(this.fixtures.alive()).isEmpty();
		assertGuardExited(forked.guardPid());
	}

	@Test
	void aKilledWatcherIsReplacedByOneThatKnowsTheRunningServers() throws Exception {
		GuardedJvm forked = fork();
		forked.command("kill-guard");
		String line = forked.awaitLine("GUARD ");
		long replacement = Long.parseLong(line.substring("GUARD ".length()));
		assertThat(replacement).isNotEqualTo(forked.guardPid());
		assertThat(Fixtures.isLive(replacement)).isTrue();
		// the new watcher ends the server when the JVM dies
		forked.jvm().destroyForcibly();
		Duration took = awaitNoneAlive();
		assertThat(took).isLessThanOrEqualTo(BOUND);
		assertGuardExited(replacement);
	}

	@Test
	void aReplacedWatcherRunsTheReaperScriptsWithTheBoundsAndDeletesThem() throws Exception {
		Path scripts = Files.createTempDirectory("mcp-stdio-reaper-scripts");
		Path output = Files.createTempFile("mcp-stdio-reaper", ".out");
		try {
			Path script = Files.writeString(scripts.resolve("reaper.sh"), "echo \"$1 $2\" > '" + output + "'\n");
			GuardedJvm forked = fork(script.toString());
			forked.command("kill-guard");
			String line = forked.awaitLine("GUARD ");
			assertThat(line).doesNotEndWith("null");
			forked.jvm().destroyForcibly();
			awaitNoneAlive();
			Await.within(Duration.ofSeconds(10)).holds(() -> !Files.exists(scripts));
			assertThat(Files.readString(output).strip()).as("grace and terminate bounds, in ms")
				.isEqualTo(STDIN_CLOSE_MILLIS + " " + TERMINATE_MILLIS);
			assertThat(scripts).as("the script and its directory, deleted after the run").doesNotExist();
		}
		finally {
			Files.deleteIfExists(scripts.resolve("reaper.sh"));
			Files.deleteIfExists(scripts);
			Files.deleteIfExists(output);
		}
	}

	@Test
	void theGuardIsNotAServerProcess() throws Exception {
		GuardedJvm forked = fork();
		assertThat(this.fixtures.alive()).doesNotContain(forked.guardPid());
		assertThat(Fixtures.markers(forked.guardPid())).isNull();
		// its pid is known once spawned: on a loaded machine it may still be
		// setsid, or sh reading its script, before it settles in read; then it
		// stays there
		Path stat = Path.of("/proc", Long.toString(forked.guardPid()), "stat");
		String sleepingSh = "(?s)\\d+ \\(sh\\) S .*";
		Await.within(Duration.ofSeconds(10)).until("the guard sleeps in sh", () -> read(stat).matches(sleepingSh));
		for (int look = 0; look < 5; look++) {
			Thread.sleep(20);
			assertThat(read(stat)).as("the guard sleeps in read while the JVM lives").matches(sleepingSh);
		}
		forked.jvm().destroyForcibly();
		awaitNoneAlive();
		assertGuardExited(forked.guardPid());
	}

	@Test
	void theGuardsCommandLineIsShortAndNamesItsApplicationAndOwner() throws Exception {
		String application = "cmdline-" + this.fixtures.id();
		try (ServerHost host = ServerHost.builder().application(application).build()) {
			StdioServerProcess server = host.start(this.fixtures.spec("echo", "echo.sh"), MessageListener.NONE);
			try {
				Long guard = ContainmentAccess.guardPid(application);
				assertThat(guard).isNotNull();
				Path cmdline = Path.of("/proc", Long.toString(guard), "cmdline");
				String expected = String.join("\0", Platform.current().shell(), "-c", GuardWatcher.LOADER,
						"mcp-stdio-guard", application, Long.toString(ProcessMarkers.CURRENT_PID),
						Long.toString(ProcessMarkers.CURRENT_START)) + "\0";
				// setsid first, then sh in its place
				Await.within(Duration.ofSeconds(10)).until("the guard runs sh", () -> read(cmdline).equals(expected));
				assertThat(read(cmdline).length() - application.length()).as("the rest of its command line")
					.isLessThan(120);
				assertThat(Fixtures.markers(guard)).isNull();
			}
			finally {
				server.stop();
			}
		}
	}

	private static String read(Path file) {
		try {
			return Files.readString(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private GuardedJvm fork(String... more) throws Exception {
		GuardedJvm forked = GuardedJvm.fork(this.fixtures, STDIN_CLOSE_MILLIS, TERMINATE_MILLIS, more);
		this.jvms.add(forked);
		return forked;
	}

	private Duration awaitNoneAlive() {
		Duration took = GuardedJvm.awaitNoneAlive(this.fixtures, BOUND.plusSeconds(5));
		this.fixtures.assertNoneAlive(Duration.ZERO);
		return took;
	}

	private void assertGuardExited(long guardPid) {
		// A guard that exited stays a zombie until PID 1 reaps it: that is gone.
		// Generous:
		// on a machine loaded far beyond two busy loops this took 3.0 and 4.3 s
		Await.within(Duration.ofSeconds(10))
			.until("the guard gone once its purpose is", () -> !Fixtures.isLive(guardPid));
	}

}

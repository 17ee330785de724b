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

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import dev.mcpstdio.core.tree.ProcessTable.Proc;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.test.PidThief;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for how a {@link TreeTerminator} signals ({@link Signalled}) with real processes:
 * through pidfds where the kernel has them, and the way without them, forced by
 * {@code ProcessScanner}'s package-private switch.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class SignalledTests {

	private static final Path NS_LAST_PID = Path.of("/proc/sys/kernel/ns_last_pid");

	private final Fixtures fixtures;

	private final List<Process> started = new ArrayList<>();

	private final ProcessScanner withPidfds = new ProcessScanner(Platform.current(), ProcReader.system());

	private final ProcessScanner withoutPidfds = new ProcessScanner(Platform.current(), ProcReader.system(), false);

	SignalledTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@AfterEach
	void cleanUp() {
		this.started.forEach(Process::destroyForcibly);
	}

	@Test
	void thisKernelHasPidfdsAndTheSwitchTurnsThemOff() {
		// Linux 5.3+ on every machine the tests run on
		try (Pidfds.Pidfd own = this.withPidfds.hold(ProcessHandle.current().pid())) {
			assertThat(own).isNotNull();
		}
		assertThat(this.withoutPidfds.hold(ProcessHandle.current().pid())).isNull();
	}

	@Test
	void aHeldProcessIsSignalledThroughItsPidfdAndItsEndIsSeen() throws Exception {
		Process sleep = start("sleep", "60");
		try (Pidfds.Pidfd pidfd = this.withPidfds.hold(sleep.pid())) {
			assertThat(pidfd).isNotNull();
			assertThat(pidfd.exited()).isFalse();
			assertThat(pidfd.signal(false)).isTrue();
			// ended, a zombie until the JDK reaps it, then gone: both read as ended
			Await.within(Duration.ofSeconds(10)).until("the end seen through the pidfd", pidfd::exited);
			assertThat(sleep.waitFor(10, TimeUnit.SECONDS)).isTrue();
			assertThat(pidfd.signal(true)).as("a signal to a reaped process").isFalse();
		}
	}

	@Test
	void aPidfdNeverReachesALaterProcessThatTookItsPid() throws Exception {
		PidThief.requireCapability();
		for (int attempt = 0; attempt < 50; attempt++) {
			Process first = start("sleep", "60");
			try (Pidfds.Pidfd pidfd = this.withPidfds.hold(first.pid())) {
				assertThat(pidfd).isNotNull();
				first.destroyForcibly();
				assertThat(first.waitFor(10, TimeUnit.SECONDS)).isTrue();
				Files.writeString(NS_LAST_PID, Long.toString(first.pid() - 1));
				Process second = start("sleep", "60");
				if (second.pid() != first.pid()) {
					second.destroyForcibly();
					continue;
				}
				assertThat(pidfd.exited()).isTrue();
				assertThat(pidfd.signal(true)).isFalse();
				assertThat(second.isAlive()).as("the process that took the pid").isTrue();
				Fixtures.sleep(100);
				assertThat(second.isAlive()).as("the process that took the pid").isTrue();
				return;
			}
		}
		throw new AssertionError("no process took a reaped pid in 50 attempts");
	}

	@Test
	void aMemberSigtermedAndNoLongerProvenIsKilledThroughItsPidfd() throws Exception {
		Process stubborn = stubborn();
		TreeTerminator.Result result = escalate(this.withPidfds, stubborn);
		assertThat(result.terminated()).isEqualTo(1);
		assertThat(result.killed()).isEqualTo(1);
		assertThat(stubborn.waitFor(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void withoutPidfdsAMemberNoLongerProvenIsNotSignalledAgain() throws Exception {
		Process stubborn = stubborn();
		TreeTerminator.Result result = escalate(this.withoutPidfds, stubborn);
		assertThat(result.terminated()).isEqualTo(1);
		assertThat(result.killed()).isZero();
		assertThat(stubborn.isAlive()).isTrue();
	}

	@Test
	void anEscalationClosesEveryPidfdItOpened() throws Exception {
		long before = openDescriptors();
		for (int i = 0; i < 3; i++) {
			Process stubborn = stubborn();
			escalate(this.withPidfds, stubborn);
			assertThat(stubborn.waitFor(10, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(openDescriptors()).isLessThanOrEqualTo(before);
	}

	/**
	 * End a process that ignores SIGTERM and that the rule proves a member only until its
	 * SIGTERM was sent, as a member of a group whose root was reaped since.
	 */
	private TreeTerminator.Result escalate(ProcessScanner scanner, Process process) {
		AtomicBoolean provable = new AtomicBoolean(true);
		TreeTerminator terminator = new TreeTerminator(scanner, Duration.ofSeconds(2));
		return terminator.escalate((table) -> {
			List<Proc> members = new ArrayList<>();
			Proc proc = table.get(process.pid());
			if (provable.get() && proc != null) {
				members.add(proc);
			}
			return members;
		}, 0, Duration.ofMillis(300), new TreeTerminator.Escalation() {

			@Override
			public void terminated(int count) {
				provable.set(false);
			}

		});
	}

	private static long openDescriptors() throws IOException {
		try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
			return fds.count();
		}
	}

	/**
	 * Start a shell that ignores SIGTERM, once it does: a signal sent before its trap is
	 * set would end it. The shell says so through a file, as fixtures' output is
	 * discarded.
	 */
	private Process stubborn() throws IOException {
		Path trapped = Files.createTempFile("mcp-stdio-trapped", "");
		Files.delete(trapped);
		try {
			Process stubborn = start("sh", "-c", "trap '' TERM; : > \"$0\"; while :; do sleep 1; done",
					trapped.toString());
			Await.that("the shell's TERM trap set", () -> Files.exists(trapped));
			return stubborn;
		}
		finally {
			Files.deleteIfExists(trapped);
		}
	}

	private Process start(String... command) throws IOException {
		Process process = this.fixtures.start(command);
		this.started.add(process);
		return process;
	}

}

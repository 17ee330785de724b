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
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.tree.Membership;
import dev.mcpstdio.core.tree.Platform;
import dev.mcpstdio.core.tree.ProcReader;
import dev.mcpstdio.core.tree.ProcessMarkers;
import dev.mcpstdio.core.tree.ProcessScanner;
import dev.mcpstdio.core.tree.ProcessTable;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link OrphanSweep} with real marked processes.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class OrphanSweepTests {

	private final Fixtures fixtures;

	private final List<Process> started = new ArrayList<>();

	OrphanSweepTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@AfterEach
	void cleanUp() {
		this.started.forEach(Process::destroyForcibly);
	}

	@Test
	void leftoversOfDeadOwnersAreEndedAndLiveOwnersAreNotTouched() throws Exception {
		String application = this.fixtures.id();
		long polite = this.fixtures.leftover("HUP", application);
		long stubborn = this.fixtures.leftover("TERM", application);
		Process owner = start("sleep", "60");
		Process ofLiveOwner = start("env", ProcessMarkers.OWNER_PID + "=" + owner.pid(),
				ProcessMarkers.SERVER + "=other",
				ProcessMarkers.INSTANCE + "=" + owner.pid() + "." + startOf(owner) + ".1",
				ProcessMarkers.APPLICATION + "=" + application, "sleep", "60");
		Fixtures.awaitMarked(ofLiveOwner.pid());
		try (ServerHost host = ServerHost.builder().application(application).build()) {
			Containments.Swept result = host.sweepLeftovers(List.of(), Duration.ofMillis(500), false);
			assertThat(result.pids()).contains(polite, stubborn).doesNotContain(ofLiveOwner.pid(), owner.pid());
			assertThat(result.killed()).isGreaterThanOrEqualTo(1);
			assertThat(result.survivors()).isZero();
		}
		assertThat(this.fixtures.alive()).doesNotContain(polite, stubborn).contains(ofLiveOwner.pid(), owner.pid());
		ofLiveOwner.destroyForcibly();
		owner.destroyForcibly();
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void aLiveOwnerStartedAfterTheMarkedProcessIsAReusedPid() throws Exception {
		Path handoff = Files.createTempFile("owner", ".pid");
		try {
			Process marked = start("sh", Fixtures.script("late-marked.sh"), handoff.toString(), this.fixtures.id());
			Fixtures.sleep(50);
			Process owner = start("sleep", "60");
			Files.writeString(handoff, owner.pid() + "\n", StandardCharsets.US_ASCII);
			Fixtures.awaitMarked(marked.pid());
			try (ServerHost host = ServerHost.builder().application(this.fixtures.id()).build()) {
				Containments.Swept result = host.sweepLeftovers(List.of(), Duration.ofMillis(500), false);
				assertThat(result.pids()).contains(marked.pid()).doesNotContain(owner.pid());
			}
			assertThat(marked.waitFor(5, TimeUnit.SECONDS)).isTrue();
			assertThat(owner.isAlive()).isTrue();
			owner.destroyForcibly();
			this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
		}
		finally {
			Files.deleteIfExists(handoff);
		}
	}

	@Test
	void anotherApplicationsLeftoversAreEndedOnlyWhenEveryApplicationsAreClaimed() throws Exception {
		long ofAnother = this.fixtures.leftover("HUP", this.fixtures.id() + "-another");
		try (ServerHost host = ServerHost.builder().application(this.fixtures.id()).build()) {
			assertThat(host.sweepLeftovers(List.of(), Duration.ofMillis(500), false).pids()).doesNotContain(ofAnother);
		}
		assertThat(this.fixtures.alive()).contains(ofAnother);
		// every application's, through a view of /proc that shows this test's leftover
		// only: other tests' and builds' leftovers on this machine are not this test's
		Path view = Files.createTempDirectory("mcp-stdio-proc");
		try {
			ProcessScanner scanner = new ProcessScanner(Platform.current(), procShowing(view, ofAnother));
			assertThat(
					Leftovers.sweepProcesses(scanner, Membership.ofCurrentUser(), null, Duration.ofMillis(500)).pids())
				.containsExactly(ofAnother);
		}
		finally {
			// the links only, never what they lead to
			try (DirectoryStream<Path> links = Files.newDirectoryStream(view)) {
				for (Path link : links) {
					Files.delete(link);
				}
			}
			Files.delete(view);
		}
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void aMarkedProcessOfAnotherUserIsNeverEnded() throws Exception {
		// what a sweep reads of a leftover, but as another user's
		long pid = 4242;
		ProcessMarkers markers = new ProcessMarkers("leftover", 999_999_999, "999999999.2.3", "app");
		ProcessTable.Proc ofAnother = new ProcessTable.Proc(new ProcessTable.Ids(pid, 1, pid, pid), 'S', 100, 4096,
				markers, Membership.CURRENT_UID + 1);
		ProcessTable.Proc ours = new ProcessTable.Proc(new ProcessTable.Ids(pid + 1, 1, pid + 1, pid + 1), 'S', 100,
				4096, markers, Membership.CURRENT_UID);
		assertThat(Leftovers.orphans(
				new ProcessTable(Map.of(ofAnother.pid(), ofAnother, ours.pid(), ours), System.nanoTime(), 0, List.of()),
				Membership.ofCurrentUser(), "app"))
			.containsExactly(ours);
	}

	/**
	 * A view of {@code /proc} that shows the given processes, and all of it that is not a
	 * process.
	 */
	private static ProcReader procShowing(Path view, long... pids) throws IOException {
		try (DirectoryStream<Path> entries = Files.newDirectoryStream(Path.of("/proc"))) {
			for (Path entry : entries) {
				if (!entry.getFileName().toString().chars().allMatch(Character::isDigit)) {
					Files.createSymbolicLink(view.resolve(entry.getFileName().toString()), entry);
				}
			}
		}
		for (long pid : pids) {
			Files.createSymbolicLink(view.resolve(Long.toString(pid)), Path.of("/proc", Long.toString(pid)));
		}
		return new ProcReader(view);
	}

	private static long startOf(Process process) {
		ProcReader.Stat stat = ProcReader.system().stat(process.pid());
		assertThat(stat).isNotNull();
		return stat.startTime();
	}

	private Process start(String... command) throws IOException {
		Process process = this.fixtures.start(command);
		this.started.add(process);
		return process;
	}

}

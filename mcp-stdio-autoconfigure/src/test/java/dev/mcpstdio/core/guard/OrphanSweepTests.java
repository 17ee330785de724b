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

package dev.mcpstdio.core.guard;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.process.ProcessMarkers;
import dev.mcpstdio.core.process.ProcessScanner;
import dev.mcpstdio.test.Fixtures;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link OrphanSweep} with real marked processes.
 *
 * @author mcp-stdio authors
 */
class OrphanSweepTests {

	private final Fixtures fixtures = new Fixtures();

	private final List<Process> started = new ArrayList<>();

	@AfterEach
	void cleanUp() {
		this.started.forEach(Process::destroyForcibly);
		this.fixtures.killLeftovers();
	}

	@Test
	void leftoversOfDeadOwnersAreEndedAndLiveOwnersAreNotTouched() throws Exception {
		long polite = leftover(this.fixtures, "HUP");
		long stubborn = leftover(this.fixtures, "TERM");
		Process owner = start("sleep", "60");
		Process ofLiveOwner = start("env", ProcessMarkers.OWNER_PID + "=" + owner.pid(),
				ProcessMarkers.SERVER + "=other", "sleep", "60");
		awaitMarked(ofLiveOwner.pid());
		OrphanSweep.Result result = ServerHost.shared().orphanSweep().sweep(Duration.ofMillis(500));
		assertThat(result.pids()).contains(polite, stubborn).doesNotContain(ofLiveOwner.pid(), owner.pid());
		assertThat(result.killed()).isGreaterThanOrEqualTo(1);
		assertThat(result.survivors()).isZero();
		assertThat(this.fixtures.alive()).doesNotContain(polite, stubborn).contains(ofLiveOwner.pid(), owner.pid());
		ofLiveOwner.destroyForcibly();
		owner.destroyForcibly();
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void aLiveOwnerStartedAfterTheMarkedProcessIsAReusedPid() throws Exception {
		Path handoff = Files.createTempFile("owner", ".pid");
		try {
			Process marked = start("sh", Fixtures.script("late-marked.sh"), handoff.toString());
			Fixtures.sleep(50);
			Process owner = start("sleep", "60");
			Files.writeString(handoff, owner.pid() + "\n", StandardCharsets.US_ASCII);
			awaitMarked(marked.pid());
			OrphanSweep.Result result = ServerHost.shared().orphanSweep().sweep(Duration.ofMillis(500));
			assertThat(result.pids()).contains(marked.pid()).doesNotContain(owner.pid());
			assertThat(marked.waitFor(5, TimeUnit.SECONDS)).isTrue();
			assertThat(owner.isAlive()).isTrue();
			owner.destroyForcibly();
			this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
		}
		finally {
			Files.deleteIfExists(handoff);
		}
	}

	/**
	 * Leave a marked process whose owner is gone.
	 * @param fixtures the test's marker
	 * @param ignored the signal it ignores
	 * @return its pid
	 */
	static long leftover(Fixtures fixtures, String ignored) throws IOException, InterruptedException {
		ProcessBuilder builder = new ProcessBuilder("sh", Fixtures.script("leftover.sh"), ignored);
		builder.environment().put(Fixtures.MARKER, fixtures.id());
		builder.redirectError(ProcessBuilder.Redirect.DISCARD);
		Process shell = builder.start();
		String out = new String(shell.getInputStream().readNBytes(64), StandardCharsets.US_ASCII).trim();
		assertThat(shell.waitFor(5, TimeUnit.SECONDS)).isTrue();
		long pid = Long.parseLong(out);
		awaitMarked(pid);
		// Its loop runs (so its trap is set) once it has had a child
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		boolean looping = false;
		while (!looping && System.nanoTime() < deadline) {
			looping = ProcessHandle.of(pid).map((h) -> h.children().findAny().isPresent()).orElse(false);
			Fixtures.sleep(10);
		}
		assertThat(looping).as("loop of %s running", pid).isTrue();
		return pid;
	}

	static void awaitMarked(long pid) {
		Path environ = Path.of("/proc", Long.toString(pid), "environ");
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while (ProcessScanner.readMarkers(environ) == null && System.nanoTime() < deadline) {
			Fixtures.sleep(10);
		}
		assertThat(ProcessScanner.readMarkers(environ)).as("markers of %s", pid).isNotNull();
	}

	private Process start(String... command) throws IOException {
		ProcessBuilder builder = new ProcessBuilder(command);
		builder.environment().put(Fixtures.MARKER, this.fixtures.id());
		builder.redirectOutput(ProcessBuilder.Redirect.DISCARD);
		builder.redirectError(ProcessBuilder.Redirect.DISCARD);
		Process process = builder.start();
		this.started.add(process);
		return process;
	}

}

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
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.core.tree.ProcessTable.Proc;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ProcessScanner} with real processes.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class ProcessScannerTests {

	private final Fixtures fixtures;

	private Process process;

	ProcessScannerTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@AfterEach
	void cleanUp() {
		if (this.process != null) {
			this.process.destroyForcibly();
		}
	}

	@Test
	void aProcessInExitIsNotTakenForOneCaughtInExec() throws IOException {
		// this process's own flags, as /proc shows them: not exiting
		String stat = Files.readString(Path.of("/proc/self/stat"));
		long flags = Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[6]);
		assertThat(stat(flags).isExiting()).isFalse();
		// PF_EXITING (0x4) set, as in exit(): its empty environment is not an exec's
		assertThat(stat(flags | 0x4).isExiting()).isTrue();
		assertThat(stat(0x4).isExiting()).isTrue();
		assertThat(stat(0x400040).isExiting()).isFalse();
	}

	@Test
	void aProcessScannedBeforeItExecsIsReadAgainAfterwards() throws Exception {
		ProcessScanner scanner = new ProcessScanner(Platform.current(), ProcReader.system());
		Path go = Files.createTempFile("exec", ".go");
		Files.delete(go);
		try {
			// No environment at all first, as a process caught in exec shows; then it
			// execs into one that carries markers, keeping its pid and start time
			this.process = new ProcessBuilder("env", "-i", "/bin/sh", "-c",
					"while [ ! -e \"$0\" ]; do sleep 0.01; done; exec env " + ProcessMarkers.SERVER + "=files "
							+ ProcessMarkers.OWNER_PID + "=1 " + Fixtures.MARKER + "=" + this.fixtures.id()
							+ " sleep 30",
					go.toString())
				.start();
			long pid = this.process.pid();
			awaitEmptyEnvironment(pid);
			ProcessTable before = scanner.scan();
			assertThat(before.get(pid)).isNotNull();
			assertThat(before.get(pid).markers()).isNull();
			assertThat(before.unread()).isNotEmpty();
			Files.createFile(go);
			Proc after = Await.within(Duration.ofSeconds(10))
				.value(() -> scanner.scan().get(pid), (read) -> read != null && read.markers() != null);
			assertThat(after).isNotNull();
			assertThat(after.startTime()).isEqualTo(before.get(pid).startTime());
			assertThat(after.markers()).as(() -> "markers of " + describe(pid))
				.isEqualTo(new ProcessMarkers("files", 1, null, null));
		}
		finally {
			Files.deleteIfExists(go);
		}
	}

	@Test
	void aProcessThatExecsIntoMarkersIsReadAgainThoughItsStartTimeStays() throws Exception {
		ProcessScanner scanner = new ProcessScanner(Platform.current(), ProcReader.system());
		Path go = Files.createTempFile("exec", ".go");
		Files.delete(go);
		try {
			// An environment without markers first, read and cached; then an exec into
			// one with markers, keeping pid and start time
			ProcessBuilder builder = new ProcessBuilder("/bin/sh", "-c",
					"while [ ! -e \"$0\" ]; do sleep 0.01; done; exec env " + ProcessMarkers.SERVER + "=files "
							+ ProcessMarkers.OWNER_PID + "=1 sleep 30",
					go.toString());
			builder.environment().put(Fixtures.MARKER, this.fixtures.id());
			this.process = builder.start();
			long pid = this.process.pid();
			Proc before = scanner.scan().get(pid);
			assertThat(before).isNotNull();
			assertThat(before.markers()).isNull();
			Files.createFile(go);
			Proc after = Await.within(Duration.ofSeconds(10))
				.value(() -> scanner.scan().get(pid), (read) -> read != null && read.markers() != null);
			assertThat(after).isNotNull();
			assertThat(after.startTime()).isEqualTo(before.startTime());
			assertThat(after.markers()).isEqualTo(new ProcessMarkers("files", 1, null, null));
		}
		finally {
			Files.deleteIfExists(go);
		}
	}

	@Test
	void callersAtTheSameTimeShareReadsThatBeganAfterTheyAsked() throws Exception {
		ProcessScanner scanner = new ProcessScanner(Platform.current(), ProcReader.system());
		int threads = 8;
		int calls = 50;
		// every read is returned to the caller that made it: as many snapshots as reads
		Set<ProcessTable> snapshots = Collections.newSetFromMap(Collections.synchronizedMap(new IdentityHashMap<>()));
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			List<Future<Boolean>> results = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				results.add(executor.submit(() -> {
					for (int i = 0; i < calls; i++) {
						long asked = System.nanoTime();
						ProcessTable snapshot = scanner.scan();
						snapshots.add(snapshot);
						if (snapshot.takenAt() - asked < 0) {
							return false;
						}
					}
					return true;
				}));
			}
			for (Future<Boolean> result : results) {
				assertThat(result.get(60, TimeUnit.SECONDS)).as("every snapshot began after its call").isTrue();
			}
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(snapshots).as("reads shared").hasSizeLessThan(threads * calls);
	}

	@Test
	void aSnapshotBegunAfterTheTimeGivenServesWithoutAnotherRead() {
		ProcessScanner scanner = new ProcessScanner(Platform.current(), ProcReader.system());
		long before = System.nanoTime();
		ProcessTable taken = scanner.scan();
		// a read returns its own new snapshot: the same one means no read
		assertThat(scanner.scan(before)).isSameAs(taken);
		long after = System.nanoTime();
		ProcessTable fresh = scanner.scan(after);
		assertThat(fresh).isNotSameAs(taken);
		assertThat(fresh.takenAt() - after).as("began after the time given").isNotNegative();
		assertThat(scanner.scan(after)).as("one read serves both").isSameAs(fresh);
	}

	@Test
	void withoutProcTheScanFindsProcessesThroughProcessHandle() throws Exception {
		ProcessScanner scanner = new ProcessScanner(withoutProcFileSystem(), ProcReader.system());
		this.process = sleeper();
		ProcessTable table = scanner.scan();
		Proc child = table.get(this.process.pid());
		assertThat(child).isNotNull();
		assertThat(child.ppid()).isEqualTo(ProcessMarkers.CURRENT_PID);
		assertThat(child.startTime()).as("epoch millis").isGreaterThan(1_600_000_000_000L);
		assertThat(child.markers()).isNull();
		assertThat(table.descendantsOf(java.util.List.of(table.get(ProcessMarkers.CURRENT_PID)))).extracting(Proc::pid)
			.contains(this.process.pid());
	}

	@Test
	void aProcessIsSignalledOnlyWhileItHasTheStartTimeOfTheSnapshot() throws Exception {
		for (Platform platform : java.util.List.of(Platform.current(), withoutProcFileSystem())) {
			ProcessScanner scanner = new ProcessScanner(platform, ProcReader.system());
			this.process = sleeper();
			Proc seen = scanner.scan().get(this.process.pid());
			Proc reused = new Proc(seen.ids(), seen.state(), seen.startTime() + 1, 0, null, Membership.CURRENT_UID);
			assertThat(scanner.signal(reused, true)).isFalse();
			assertThat(this.process.waitFor(200, TimeUnit.MILLISECONDS)).as("still alive").isFalse();
			assertThat(scanner.signal(seen, true)).isTrue();
			assertThat(this.process.waitFor(5, TimeUnit.SECONDS)).isTrue();
		}
	}

	@Test
	void theStartTimeOfALiveProcessIsKnown() throws Exception {
		ProcessScanner scanner = new ProcessScanner(Platform.current(), ProcReader.system());
		this.process = sleeper();
		assertThat(scanner.startTimeOf(this.process.pid())).isPositive();
	}

	private static String describe(long pid) {
		try {
			Path dir = Path.of("/proc", Long.toString(pid));
			return new String(Files.readAllBytes(dir.resolve("cmdline"))).replace('\0', ' ') + " with environment "
					+ new String(Files.readAllBytes(dir.resolve("environ"))).replace('\0', ' ');
		}
		catch (IOException ex) {
			return pid + ": " + ex;
		}
	}

	private Process sleeper() throws IOException {
		ProcessBuilder builder = new ProcessBuilder("sleep", "30");
		builder.environment().put(Fixtures.MARKER, this.fixtures.id());
		return builder.start();
	}

	private static void awaitEmptyEnvironment(long pid) {
		Path environ = Path.of("/proc", Long.toString(pid), "environ");
		Path cmdline = Path.of("/proc", Long.toString(pid), "cmdline");
		// env -i has exec'd the shell once its environment reads empty
		Await.within(Duration.ofSeconds(10)).until("the shell started, with an empty environment", () -> {
			try {
				return Files.readString(cmdline).startsWith("/bin/sh") && Files.readAllBytes(environ).length == 0;
			}
			catch (IOException ex) {
				return false;
			}
		});
	}

	private static ProcReader.Stat stat(long flags) {
		return new ProcReader.Stat(new ProcessTable.Ids(1, 0, 1, 1), 'S', flags, 1, 1);
	}

	/** This platform without {@code /proc}: processes are read through ProcessHandle. */
	private static Platform withoutProcFileSystem() {
		Platform current = Platform.current();
		return new Platform(current.osName(), current.setsid(), false, current.shell());
	}

}

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

package dev.mcpstdio.core.server.io;

import java.io.File;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.core.secrets.SecretValues;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link StderrPoller}: one thread reads the stderr of many processes, and
 * {@link StderrTail#finish} reads what is left once a process has ended.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class StderrPollerTests {

	private final Fixtures fixtures;

	private final StderrLog log = new StderrLog(100, 200, Duration.ofSeconds(5), 64, StderrLog.LAST_LINES_BOUND);

	private final ExecutorService tasks = Executors.newCachedThreadPool();

	private final List<Process> processes = new ArrayList<>();

	StderrPollerTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@AfterEach
	void cleanUp() {
		this.processes.forEach(Process::destroyForcibly);
		this.tasks.shutdownNow();
		this.log.shutdown();
	}

	@Test
	void oneThreadReadsTheStderrOfEveryProcessWhileTheyRun() throws Exception {
		StderrPoller poller = new StderrPoller(StderrPoller.IDLE);
		List<StderrTail> tails = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			StderrTail tail = new StderrTail(this.log.open("poll-" + i, SecretValues.NONE),
					start("echo first-" + i + " >&2; " + "sleep 0.3; echo second-" + i + " >&2; exec sleep 30")
						.getErrorStream(),
					10);
			tails.add(tail);
			poller.add(tail);
		}
		for (int i = 0; i < 5; i++) {
			awaitLines(tails.get(i), List.of("first-" + i, "second-" + i));
		}
		assertThat(poller.thread()).isNotNull();
		assertThat(poller.thread().isAlive()).isTrue();
		assertThat(threadsNamed("poll-")).as("no thread per stream").isZero();
		// The processes run on: nothing was read to an end, and nothing blocked
		for (StderrTail tail : tails) {
			assertThat(tail.done.await(0, TimeUnit.MILLISECONDS)).isFalse();
		}
	}

	@Test
	void whatIsLeftAfterTheExitIsReadToTheEnd() throws Exception {
		StderrPoller poller = new StderrPoller(StderrPoller.IDLE);
		Process process = start("sleep 0.2; printf 'last line\\nno newline' >&2; exit 3");
		StderrTail tail = new StderrTail(this.log.open("finish", SecretValues.NONE), process.getErrorStream(), 10);
		poller.add(tail);
		assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
		poller.remove(tail);
		tail.finish(this.tasks);
		assertThat(tail.done.await(30, TimeUnit.SECONDS)).isTrue();
		assertThat(tail.lines()).containsExactly("last line", "no newline");
	}

	@Test
	void aFloodIsReadWhileItIsWritten() throws Exception {
		StderrPoller poller = new StderrPoller(StderrPoller.IDLE);
		// 2 MB: far more than a pipe holds, so the writer waits for the poller
		Process process = start("i=0; while [ $i -lt 20000 ]; do echo 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
				+ "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' >&2; i=$((i+1)); done; echo flood done >&2; "
				+ "exec sleep 30");
		StderrTail tail = new StderrTail(this.log.open("flood", SecretValues.NONE), process.getErrorStream(), 1);
		poller.add(tail);
		awaitLines(tail, List.of("flood done"));
	}

	private Process start(String script) throws IOException {
		ProcessBuilder builder = new ProcessBuilder("/bin/sh", "-c", script).redirectInput(new File("/dev/null"))
			.redirectOutput(ProcessBuilder.Redirect.DISCARD);
		builder.environment().put(Fixtures.MARKER, this.fixtures.id());
		Process process = builder.start();
		this.processes.add(process);
		return process;
	}

	private static void awaitLines(StderrTail tail, List<String> expected) {
		List<String> lines = Await.within(Duration.ofSeconds(60))
			.value(tail::lines, (read) -> read.containsAll(expected));
		assertThat(lines).containsAll(expected);
	}

	private static long threadsNamed(String part) {
		return Thread.getAllStackTraces().keySet().stream().filter((thread) -> thread.getName().contains(part)).count();
	}

	@Test
	void theThreadEndsOnceNoStreamIsLeftAndStartsAgainForTheNext() throws Exception {
		StderrPoller poller = new StderrPoller(Duration.ofMillis(100));
		StderrTail first = new StderrTail(this.log.open("again-1", SecretValues.NONE),
				start("echo one >&2; exec sleep 30").getErrorStream(), 10);
		poller.add(first);
		awaitLines(first, List.of("one"));
		Thread thread = poller.thread();
		poller.remove(first);
		thread.join(10_000);
		assertThat(thread.isAlive()).isFalse();
		StderrTail second = new StderrTail(this.log.open("again-2", SecretValues.NONE),
				start("echo two >&2; exec sleep 30").getErrorStream(), 10);
		poller.add(second);
		awaitLines(second, List.of("two"));
	}

}

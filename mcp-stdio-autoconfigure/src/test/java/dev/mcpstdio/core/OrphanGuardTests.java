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

package dev.mcpstdio.core;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.test.Fixtures;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link OrphanGuard} with forked JVMs whose server ignores stdin EOF and
 * SIGTERM and has a child and a daemonized grandchild.
 *
 * @author mcp-stdio authors
 */
class OrphanGuardTests {

	static final long STDIN_CLOSE_MILLIS = 1000;

	static final long TERMINATE_MILLIS = 1000;

	/** The guarantee: {@code stdin-close-timeout + terminate-timeout + 1s}. */
	static final Duration BOUND = OrphanGuard.bound(new ShutdownTimeouts(Duration.ofSeconds(1),
			Duration.ofMillis(STDIN_CLOSE_MILLIS), Duration.ofMillis(TERMINATE_MILLIS)));

	private final Fixtures fixtures = new Fixtures();

	private final List<Process> jvms = new ArrayList<>();

	@AfterEach
	void cleanUp() {
		for (Process jvm : this.jvms) {
			jvm.destroyForcibly();
		}
		this.fixtures.killLeftovers();
	}

	@Test
	void killMinus9OfTheJvmLeavesNoServerProcess() throws Exception {
		Forked forked = fork();
		forked.jvm.destroyForcibly();
		Duration took = awaitNoneAlive();
		assertThat(took).isLessThanOrEqualTo(BOUND);
		assertGuardExited(forked);
	}

	@Test
	void haltOfTheJvmLeavesNoServerProcess() throws Exception {
		Forked forked = fork();
		forked.command("halt");
		assertThat(forked.jvm.waitFor(10, TimeUnit.SECONDS)).isTrue();
		assertThat(forked.jvm.exitValue()).isEqualTo(3);
		Duration took = awaitNoneAlive();
		assertThat(took).isLessThanOrEqualTo(BOUND);
		assertGuardExited(forked);
	}

	@Test
	void normalExitAfterStopLeavesNothingAndTheGuardGoes() throws Exception {
		Forked forked = fork();
		forked.command("stop");
		assertThat(forked.jvm.waitFor(20, TimeUnit.SECONDS)).isTrue();
		assertThat(forked.jvm.exitValue()).isEqualTo(0);
		assertThat(this.fixtures.alive()).isEmpty();
		assertGuardExited(forked);
	}

	@Test
	void aKilledWatcherIsReplacedByOneThatKnowsTheRunningServers() throws Exception {
		Forked forked = fork();
		forked.command("kill-guard");
		String line = forked.awaitLine("GUARD ");
		long replacement = Long.parseLong(line.substring("GUARD ".length()));
		assertThat(replacement).isNotEqualTo(forked.guardPid);
		assertThat(Fixtures.isLive(replacement)).isTrue();
		// the new watcher ends the server when the JVM dies
		forked.jvm.destroyForcibly();
		Duration took = awaitNoneAlive();
		assertThat(took).isLessThanOrEqualTo(BOUND);
		assertGuardExited(new Forked(forked.jvm, replacement, forked.stdin, forked.lines));
	}

	@Test
	void theGuardIsNotAServerProcess() throws Exception {
		Forked forked = fork();
		assertThat(this.fixtures.alive()).doesNotContain(forked.guardPid);
		assertThat(ProcessScanner.readMarkers(Path.of("/proc", Long.toString(forked.guardPid), "environ"))).isNull();
		assertThat(Files.readString(Path.of("/proc", Long.toString(forked.guardPid), "stat")))
			.as("the guard sleeps in read while the JVM lives")
			.matches("(?s)\\d+ \\(sh\\) S .*");
		forked.jvm.destroyForcibly();
		awaitNoneAlive();
		assertGuardExited(forked);
	}

	/**
	 * Measure the time from {@code kill -9} of the JVM to the last server process gone,
	 * {@code -Dorphan-guard.runs=N} times (1 by default), and print median and maximum.
	 */
	@Test
	void measureKillToLastProcessGone() throws Exception {
		int runs = Integer.getInteger("orphan-guard.runs", 1);
		List<Long> millis = new ArrayList<>();
		for (int i = 0; i < runs; i++) {
			Forked forked = fork();
			forked.jvm.destroyForcibly();
			Duration took = awaitNoneAlive();
			assertThat(took).isLessThanOrEqualTo(BOUND);
			millis.add(took.toMillis());
		}
		Collections.sort(millis);
		System.out.println("orphan-guard: kill -9 to last process gone, stdin-close-timeout " + STDIN_CLOSE_MILLIS
				+ "ms + terminate-timeout " + TERMINATE_MILLIS + "ms, " + runs + " runs: median "
				+ millis.get(millis.size() / 2) + " ms, max " + millis.get(millis.size() - 1) + " ms, all " + millis);
	}

	private Forked fork() throws Exception {
		String java = ProcessHandle.current().info().command().orElseThrow();
		ProcessBuilder builder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
				OrphanGuardApp.class.getName(), this.fixtures.id(), Long.toString(STDIN_CLOSE_MILLIS),
				Long.toString(TERMINATE_MILLIS));
		File log = File.createTempFile("orphan-guard-app", ".log");
		log.deleteOnExit();
		builder.redirectError(log);
		Process jvm = builder.start();
		this.jvms.add(jvm);
		BufferedReader out = new BufferedReader(new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8));
		BlockingQueue<String> lines = new LinkedBlockingQueue<>(10_000);
		// Reads to the end, so that the forked JVM's logging never blocks on a full pipe
		Thread reader = new Thread(() -> {
			try {
				for (String line = out.readLine(); line != null; line = out.readLine()) {
					lines.offer(line);
				}
				lines.offer("EOF");
			}
			catch (IOException ex) {
				lines.offer(ex.toString());
			}
		}, "forked-jvm-stdout");
		reader.setDaemon(true);
		reader.start();
		String line = Forked.poll(lines, "READY ");
		assertThat(line).as(() -> "forked JVM output; its log: " + read(log)).startsWith("READY ");
		String[] parts = line.split(" ");
		long serverPid = Long.parseLong(parts[1]);
		long guardPid = Long.parseLong(parts[2]);
		// root, child and the daemonized grandchild (and their short sleeps)
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (longLived().size() < 3 && System.nanoTime() < deadline) {
			Fixtures.sleep(20);
		}
		assertThat(longLived()).hasSizeGreaterThanOrEqualTo(3).contains(serverPid);
		return new Forked(jvm, guardPid, jvm.getOutputStream(), lines);
	}

	/** The marked processes that are not a passing {@code sleep}. */
	private List<Long> longLived() {
		List<Long> pids = new ArrayList<>();
		for (long pid : this.fixtures.alive()) {
			String command = ProcessHandle.of(pid).flatMap((h) -> h.info().command()).orElse("");
			if (!command.endsWith("/sleep")) {
				pids.add(pid);
			}
		}
		return pids;
	}

	private Duration awaitNoneAlive() {
		long begin = System.nanoTime();
		long deadline = begin + BOUND.toNanos() + TimeUnit.SECONDS.toNanos(5);
		Duration took = null;
		// A child forked by a dying parent can slip between one scan's directory reads:
		// only two empty scans 100 ms apart count as none alive
		while (took == null && System.nanoTime() < deadline) {
			if (this.fixtures.alive().isEmpty()) {
				Duration first = Duration.ofNanos(System.nanoTime() - begin);
				Fixtures.sleep(100);
				if (this.fixtures.alive().isEmpty()) {
					took = first;
				}
			}
			else {
				Fixtures.sleep(10);
			}
		}
		took = (took != null) ? took : Duration.ofNanos(System.nanoTime() - begin);
		this.fixtures.assertNoneAlive(Duration.ZERO);
		return took;
	}

	private void assertGuardExited(Forked forked) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
		// A guard that exited stays a zombie until PID 1 reaps it: that is gone
		while (Fixtures.isLive(forked.guardPid) && System.nanoTime() < deadline) {
			Fixtures.sleep(20);
		}
		assertThat(Fixtures.isLive(forked.guardPid)).as("the guard outlived its purpose").isFalse();
	}

	private static String read(File file) {
		try {
			return Files.readString(file.toPath());
		}
		catch (IOException ex) {
			return ex.toString();
		}
	}

	private record Forked(Process jvm, long guardPid, OutputStream stdin, BlockingQueue<String> lines) {

		void command(String command) throws IOException {
			this.stdin.write((command + "\n").getBytes(StandardCharsets.UTF_8));
			this.stdin.flush();
		}

		String awaitLine(String prefix) throws InterruptedException {
			return poll(this.lines, prefix);
		}

		static String poll(BlockingQueue<String> lines, String prefix) throws InterruptedException {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
			while (System.nanoTime() < deadline) {
				String line = lines.poll(100, TimeUnit.MILLISECONDS);
				if (line != null && (line.startsWith(prefix) || line.equals("EOF"))) {
					return line;
				}
			}
			return "(no line starting with " + prefix + " within 60s)";
		}

	}

}

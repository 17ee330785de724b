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

package dev.mcpstdio.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import dev.mcpstdio.core.server.StartSendStopRace;
import dev.mcpstdio.core.containment.OrphanGuardApp;
import dev.mcpstdio.test.Fixtures;

/**
 * Timings of the orphan guard after {@code kill -9} and of the start-send-stop race.
 *
 * @author mcp-stdio authors
 */
final class GuardAndRaceFigures {

	private static final long STDIN_CLOSE_MILLIS = 1000;

	private static final long TERMINATE_MILLIS = 1000;

	private GuardAndRaceFigures() {
	}

	/**
	 * Measure the time from {@code kill -9} of a JVM to the last of its server's
	 * processes gone, with the forked application of the guard's tests
	 * ({@link OrphanGuardApp}): a server that ignores stdin EOF and SIGTERM, with a child
	 * and a daemonized grandchild, stdin-close-timeout and terminate-timeout 1s each.
	 * @param runs how many JVMs to kill
	 * @return the figures
	 * @throws Exception if a JVM could not be forked
	 */
	static List<String> killToLastProcessGone(int runs) throws Exception {
		// the guard's bound, as docs/orphan-guard.md gives it: both timeouts and 1 s
		long bound = STDIN_CLOSE_MILLIS + TERMINATE_MILLIS + 1000;
		List<Long> millis = new ArrayList<>();
		for (int i = 0; i < runs; i++) {
			Fixtures fixtures = new Fixtures();
			Process jvm = new ProcessBuilder(Fixtures.java(OrphanGuardApp.class.getName(), fixtures.id(),
					Long.toString(STDIN_CLOSE_MILLIS), Long.toString(TERMINATE_MILLIS)))
				.redirectError(ProcessBuilder.Redirect.DISCARD)
				.start();
			try {
				awaitFamily(jvm, fixtures);
				jvm.destroyForcibly();
				millis.add(awaitNoneAlive(fixtures, bound + 5000));
			}
			finally {
				jvm.destroyForcibly();
				fixtures.assertNoneAlive(Duration.ZERO);
			}
		}
		List<Long> sorted = new ArrayList<>(millis);
		Collections.sort(sorted);
		return List.of("orphan guard: kill -9 of the JVM to the last server process gone, stdin-close-timeout "
				+ STDIN_CLOSE_MILLIS + " ms + terminate-timeout " + TERMINATE_MILLIS + " ms (bound " + bound + " ms), "
				+ runs + " runs: median " + sorted.get(sorted.size() / 2) + " ms, max " + sorted.get(sorted.size() - 1)
				+ " ms, all " + sorted);
	}

	/**
	 * Wait for {@code READY <server pid> <guard pid>}, then until the server's root,
	 * child and daemonized grandchild all run.
	 */
	private static void awaitFamily(Process jvm, Fixtures fixtures) throws IOException {
		BufferedReader out = new BufferedReader(new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8));
		String line = out.readLine();
		while (line != null && !line.startsWith("READY ")) {
			line = out.readLine();
		}
		if (line == null) {
			throw new IllegalStateException("the forked JVM ended before READY, exit " + jvm.exitValue());
		}
		long root = Long.parseLong(line.split(" ")[1]);
		// read to the end, so that the forked JVM never blocks on a full pipe
		Thread drain = new Thread(() -> {
			try {
				while (out.readLine() != null) {
					// nothing more to look for
				}
			}
			catch (IOException ex) {
				// the JVM is gone
			}
		}, "forked-jvm-stdout");
		drain.setDaemon(true);
		drain.start();
		long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
		while (!isWhole(fixtures, root)) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("no whole family of " + root + " within 10 s: " + fixtures.alive());
			}
			Fixtures.sleep(20);
		}
	}

	/**
	 * Whether the root, the child and the daemonized grandchild run: three long-lived
	 * members (the shell between child and grandchild passes, and so do their one-second
	 * sleeps), one of them reparented (its parent no member and not the JVM).
	 */
	private static boolean isWhole(Fixtures fixtures, long root) {
		List<Long> longLived = new ArrayList<>();
		for (long pid : fixtures.alive()) {
			if (!ProcessHandle.of(pid).flatMap((h) -> h.info().command()).orElse("").endsWith("/sleep")) {
				longLived.add(pid);
			}
		}
		long jvm = ProcessHandle.of(root).flatMap(ProcessHandle::parent).map(ProcessHandle::pid).orElse(-1L);
		return longLived.size() >= 3 && longLived.contains(root) && longLived.stream()
			.map((pid) -> ProcessHandle.of(pid).flatMap(ProcessHandle::parent).map(ProcessHandle::pid).orElse(-1L))
			.anyMatch((parent) -> parent != jvm && !longLived.contains(parent));
	}

	/**
	 * Wait until none of the marked processes is alive, bounded: a child forked by a
	 * dying parent can slip between one scan's directory reads, so only two empty scans
	 * 100 ms apart count.
	 * @return milliseconds until the first of the two empty scans, or the bound
	 */
	private static long awaitNoneAlive(Fixtures fixtures, long boundMillis) {
		long begin = System.nanoTime();
		long deadline = begin + boundMillis * 1_000_000;
		while (System.nanoTime() < deadline) {
			if (fixtures.alive().isEmpty()) {
				long took = (System.nanoTime() - begin) / 1_000_000;
				Fixtures.sleep(100);
				if (fixtures.alive().isEmpty()) {
					return took;
				}
			}
			Fixtures.sleep(10);
		}
		return boundMillis;
	}

	/**
	 * Run the start-send-stop race of 16 threads (the test suite's
	 * {@link StartSendStopRace}, whose test asserts and prints nothing).
	 * @param rounds rounds per thread
	 * @return the figures
	 * @throws InterruptedException if interrupted
	 */
	static List<String> race(int rounds) throws InterruptedException {
		Fixtures fixtures = new Fixtures();
		try {
			return List.of("start-send-stop race, 16 threads: " + StartSendStopRace.run(fixtures, 16, rounds));
		}
		finally {
			fixtures.assertNoneAlive(Duration.ofSeconds(5));
		}
	}

}

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
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A JVM forked with {@link OrphanGuardApp}, for the guard's tests and its benchmark.
 *
 * @author mcp-stdio authors
 */
public final class GuardedJvm implements AutoCloseable {

	private final Process jvm;

	private final long guardPid;

	private final OutputStream stdin;

	private final BlockingQueue<String> lines;

	private GuardedJvm(Process jvm, long guardPid, OutputStream stdin, BlockingQueue<String> lines) {
		this.jvm = jvm;
		this.guardPid = guardPid;
		this.stdin = stdin;
		this.lines = lines;
	}

	/**
	 * Fork the JVM and wait until its server, the server's child and grandchild run.
	 * @param fixtures the marker of the processes
	 * @param stdinCloseMillis the server's stdin-close-timeout
	 * @param terminateMillis the server's terminate-timeout
	 * @param more more arguments of {@link OrphanGuardApp}
	 * @return the forked JVM
	 * @throws Exception if it could not be started
	 */
	public static GuardedJvm fork(Fixtures fixtures, long stdinCloseMillis, long terminateMillis, String... more)
			throws Exception {
		List<String> command = new ArrayList<>(Fixtures.java(OrphanGuardApp.class.getName(), fixtures.id(),
				Long.toString(stdinCloseMillis), Long.toString(terminateMillis)));
		command.addAll(List.of(more));
		ProcessBuilder builder = new ProcessBuilder(command);
		File log = File.createTempFile("orphan-guard-app", ".log");
		log.deleteOnExit();
		builder.redirectError(log);
		Process jvm = builder.start();
		try {
			BufferedReader out = new BufferedReader(
					new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8));
			BlockingQueue<String> lines = new LinkedBlockingQueue<>(10_000);
			// Reads to the end, so that the forked JVM's logging never blocks on a full
			// pipe
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
			String line = poll(lines, "READY ");
			assertThat(line).as(() -> "forked JVM output; its log: " + read(log)).startsWith("READY ");
			String[] parts = line.split(" ");
			long serverPid = Long.parseLong(parts[1]);
			long guardPid = Long.parseLong(parts[2]);
			// root, child and the daemonized grandchild in a session of its own (and
			// their
			// short sleeps). One look decides: the shell between child and grandchild is
			// there only for a moment, so counting alone could see three too soon
			List<Long> family = Await.within(Duration.ofSeconds(10))
				.every(Duration.ofMillis(20))
				.value(() -> longLived(fixtures), (read) -> isWhole(read, serverPid));
			assertThat(family).as("root, child and daemonized grandchild")
				.hasSizeGreaterThanOrEqualTo(3)
				.contains(serverPid);
			assertThat(isWhole(family, serverPid)).as("a member of %s in a session of its own", family).isTrue();
			return new GuardedJvm(jvm, guardPid, jvm.getOutputStream(), lines);
		}
		catch (Exception | Error ex) {
			jvm.destroyForcibly();
			throw ex;
		}
	}

	public Process jvm() {
		return this.jvm;
	}

	long guardPid() {
		return this.guardPid;
	}

	/**
	 * Send the forked application a command: {@code halt}, {@code stop} or
	 * {@code kill-guard}.
	 * @param command the command
	 * @throws IOException if it could not be written
	 */
	void command(String command) throws IOException {
		this.stdin.write((command + "\n").getBytes(StandardCharsets.UTF_8));
		this.stdin.flush();
	}

	String awaitLine(String prefix) throws InterruptedException {
		return poll(this.lines, prefix);
	}

	/**
	 * Wait until none of the marked processes is alive, bounded.
	 * @param fixtures the marker
	 * @param bound the longest wait
	 * @return how long it took, or the bound when some are still alive
	 */
	public static Duration awaitNoneAlive(Fixtures fixtures, Duration bound) {
		long begin = System.nanoTime();
		AtomicReference<Duration> took = new AtomicReference<>();
		// A child forked by a dying parent can slip between one scan's directory reads:
		// only two empty scans 100 ms apart count as none alive
		boolean none = Await.within(bound).holds(() -> {
			if (!fixtures.alive().isEmpty()) {
				return false;
			}
			took.set(Duration.ofNanos(System.nanoTime() - begin));
			Fixtures.sleep(100);
			return fixtures.alive().isEmpty();
		});
		return none ? took.get() : Duration.ofNanos(System.nanoTime() - begin);
	}

	@Override
	public void close() {
		this.jvm.destroyForcibly();
	}

	/**
	 * Whether the family is all there: the root, and a daemonized member (in a session
	 * other than the root's) besides.
	 */
	private static boolean isWhole(List<Long> family, long root) {
		long rootSession = session(root);
		if (family.size() < 3 || !family.contains(root) || rootSession < 0) {
			return false;
		}
		for (long pid : family) {
			long session = session(pid);
			if (session >= 0 && session != rootSession) {
				return true;
			}
		}
		return false;
	}

	/** The session of a process, -1 when it is gone. */
	private static long session(long pid) {
		try {
			String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
			// after the command name: state, ppid, pgrp, session
			return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[3]);
		}
		catch (IOException | RuntimeException ex) {
			return -1;
		}
	}

	/** The marked processes that are not a passing {@code sleep}. */
	private static List<Long> longLived(Fixtures fixtures) {
		List<Long> pids = new ArrayList<>();
		for (long pid : fixtures.alive()) {
			String command = ProcessHandle.of(pid).flatMap((h) -> h.info().command()).orElse("");
			if (!command.endsWith("/sleep")) {
				pids.add(pid);
			}
		}
		return pids;
	}

	private static String poll(BlockingQueue<String> lines, String prefix) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (System.nanoTime() < deadline) {
			String line = lines.poll(100, TimeUnit.MILLISECONDS);
			if (line != null && (line.startsWith(prefix) || line.equals("EOF"))) {
				return line;
			}
		}
		return "(no line starting with " + prefix + " within 60s)";
	}

	private static String read(File file) {
		try {
			return Files.readString(file.toPath());
		}
		catch (IOException ex) {
			return ex.toString();
		}
	}

}

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
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.test.PidThief;
import dev.mcpstdio.test.PidThief.Stranger;
import dev.mcpstdio.test.PidThief.Target;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pid-reuse attack against the orphan guard, for real.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class GuardPidReuseAttackTests {

	private static final Log logger = LogFactory.getLog(GuardPidReuseAttackTests.class);

	/** Attacks that must land (a stranger got a root's pid). */
	private static final int LANDED = 20;

	/** Servers per forked JVM, each one attack. */
	private static final int SERVERS = 5;

	private final Fixtures fixtures;

	private final List<Stranger> strangers = new ArrayList<>();

	private final List<Process> jvms = new ArrayList<>();

	@TempDir
	Path exits;

	GuardPidReuseAttackTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@BeforeEach
	void attackPossible() {
		PidThief.requireCapability();
	}

	@AfterEach
	void cleanUp() {
		this.jvms.forEach(Process::destroyForcibly);
		this.strangers.forEach(Stranger::end);
	}

	@Test
	// up to 10 forked JVMs, 5 attacks each
	@Timeout(value = 10, unit = TimeUnit.MINUTES)
	// the roots of a JVM's servers exit, the instant each is reaped a stranger takes its
	// pid (leading a session and group of that id), and the JVM dies by SIGKILL before it
	// could tell its guard that they ended: the guard must end the servers' marked
	// children and never signal a stranger
	void theGuardNeverSignalsAStrangerThatTookAServerRootsPid() throws Exception {
		int landed = 0;
		int signalled = 0;
		for (int run = 0; run < 10 && landed < LANDED; run++) {
			// a directory per JVM: a pid of an earlier run's root may come again
			Path exits = Files.createTempDirectory(this.exits, "run");
			String[] ready = fork(exits);
			long[] roots = Arrays.stream(ready, 1, ready.length - 1).mapToLong(Long::parseLong).toArray();
			// known by its start time: another process may get its pid once it is gone
			ProcessHandle guard = ProcessHandle.of(Long.parseLong(ready[ready.length - 1])).orElseThrow();
			Process jvm = this.jvms.get(this.jvms.size() - 1);
			List<ProcessHandle> children = new ArrayList<>();
			for (long root : roots) {
				children.addAll(Fixtures.childrenOf(root, 2));
			}
			List<Stranger> taken = new ArrayList<>();
			List<Target> targets = Arrays.stream(roots).mapToObj((root) -> new Target(root, List.of())).toList();
			// the roots exit and are reaped by the JVM, the strangers take their pids,
			// and
			// the JVM is killed at once: before its next look at its servers' exits, so
			// it
			// never tells its guard that their roots ended
			try (PidThief thief = PidThief.lieInWait(this.fixtures, targets, jvm.pid())) {
				for (long root : roots) {
					Files.createFile(exits.resolve(Long.toString(root)));
				}
				for (int i = 0; i < roots.length; i++) {
					try {
						thief.stranger(Duration.ofSeconds(20)).ifPresent(taken::add);
					}
					catch (IllegalStateException ex) {
						throw new IllegalStateException("JVM " + jvm.pid() + " (alive: " + jvm.isAlive() + "), "
								+ String.join(" ", ready) + ", exit files " + Arrays.toString(exits.toFile().list()),
								ex);
					}
				}
			}
			assertThat(jvm.waitFor(10, TimeUnit.SECONDS)).isTrue();
			this.strangers.addAll(taken);
			// the guard ends the servers' children, then exits itself
			Fixtures.awaitEnded(children);
			Await.that("the guard exited", () -> !Fixtures.isLive(guard));
			landed += taken.size();
			for (Stranger stranger : taken) {
				signalled += stranger.isAlive() ? 0 : 1;
				stranger.end();
			}
		}
		logger
			.info("pid-reuse attack on the orphan guard: " + landed + " landed, " + signalled + " strangers signalled");
		assertThat(landed).as("attacks that landed").isGreaterThanOrEqualTo(LANDED);
		assertThat(signalled).as("strangers signalled").isZero();
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	/** Fork a JVM with its servers and return its READY line's words. */
	private String[] fork(Path exits) throws Exception {
		ProcessBuilder builder = new ProcessBuilder(Fixtures.java(AttackedJvmApp.class.getName(), this.fixtures.id(),
				Integer.toString(SERVERS), exits.toString()));
		File log = File.createTempFile("attacked-jvm", ".log");
		log.deleteOnExit();
		builder.redirectError(log);
		Process jvm = builder.start();
		this.jvms.add(jvm);
		BufferedReader out = new BufferedReader(new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8));
		CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
			try {
				for (String next = out.readLine(); next != null; next = out.readLine()) {
					if (next.startsWith("READY ")) {
						return next;
					}
				}
				return "EOF";
			}
			catch (Exception ex) {
				return ex.toString();
			}
		});
		String ready = line.get(60, TimeUnit.SECONDS);
		assertThat(ready).as(() -> "forked JVM; its log: " + read(log)).startsWith("READY ");
		return ready.split(" ");
	}

	private static String read(File log) {
		try {
			return Files.readString(log.toPath());
		}
		catch (Exception ex) {
			return ex.toString();
		}
	}

}

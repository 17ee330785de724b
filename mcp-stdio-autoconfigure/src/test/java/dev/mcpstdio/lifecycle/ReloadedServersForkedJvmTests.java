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

package dev.mcpstdio.lifecycle;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

import dev.mcpstdio.lifecycle.forked.ForkedMcpApplication;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application whose servers a watched file changed leaves nothing behind when it is
 * ended: by SIGTERM (the ordered shutdown) or by kill -9 (the orphan guard).
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class ReloadedServersForkedJvmTests {

	private final Fixtures fixtures;

	@TempDir
	Path temp;

	ReloadedServersForkedJvmTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void sigtermAfterReloadsStopsEveryServerOfTheNewSet() throws Exception {
		try (ForkedJvm jvm = forkAndReload()) {
			// SIGTERM (through the handle: Process.destroy() would also close its output)
			assertThat(jvm.process().toHandle().destroy()).isTrue();
			assertThat(jvm.awaitExit(Duration.ofSeconds(60))).as(() -> String.join("\n", jvm.output())).isEqualTo(143);
			assertThat(this.fixtures.alive()).isEmpty();
		}
	}

	@Test
	void killMinus9AfterReloadsLeavesNoServerOfTheNewSet() throws Exception {
		try (ForkedJvm jvm = forkAndReload()) {
			jvm.process().destroyForcibly();
			Await.within(ContainmentContexts.guardBound().plusSeconds(10))
				.every(Duration.ofMillis(50))
				.holds(() -> this.fixtures.alive().isEmpty());
			assertThat(this.fixtures.alive()).as(() -> String.join("\n", jvm.output())).isEmpty();
		}
	}

	/**
	 * Fork an application with two servers, then have it add one, change one and remove
	 * none through its watched file, twice.
	 */
	private ForkedJvm forkAndReload() throws Exception {
		Path file = this.temp.resolve("mcp.json");
		write(file, "first", "second");
		ForkedJvm jvm = ContainmentContexts.fork(List.of("mcp.stdio.servers-configuration=" + file));
		try {
			assertThat(jvm.awaitLine(Duration.ofSeconds(120))).startsWith(ForkedMcpApplication.READY);
			Await.that("the two servers running", () -> this.fixtures.alive().size() == 2);
			// each by its handle: the old process's pid may be given out again at once
			// (the pid-reuse attack tests in the other fork steer ns_last_pid back), and
			// the new process with it is another
			List<ProcessHandle> before = this.fixtures.alive()
				.stream()
				.map(ProcessHandle::of)
				.flatMap(Optional::stream)
				.toList();
			write(file, "first", "second changed", "third");
			// the changed server's process replaced, the third started: three alive again
			awaitApplied(jvm, "the edit applied", () -> this.fixtures.alive().size() == 3
					&& before.stream().anyMatch((process) -> !process.isAlive()));
			write(file, "first", "second changed", "third", "fourth");
			awaitApplied(jvm, "the second edit applied", () -> this.fixtures.alive().size() == 4);
			return jvm;
		}
		catch (Exception | Error ex) {
			// not handed to the test's try: its servers go with it, by the orphan guard
			jvm.close();
			throw ex;
		}
	}

	/** Wait for a reload, failing with what the application logged and who is alive. */
	private void awaitApplied(ForkedJvm jvm, String what, BooleanSupplier applied) {
		if (!Await.within(Duration.ofSeconds(60)).holds(applied)) {
			throw new AssertionError("Not within 60 s: " + what + "; alive: " + this.fixtures.alive()
					+ "; the application logged:\n" + String.join("\n", jvm.output()));
		}
	}

	/** Write the file whole: each server an echo server, with an argument or two. */
	private void write(Path file, String... servers) throws IOException {
		List<String> entries = new ArrayList<>();
		for (String server : servers) {
			String[] words = server.split(" ");
			String args = "\"" + Fixtures.script("echo.sh") + "\""
					+ ((words.length > 1) ? ", \"" + words[1] + "\"" : "");
			entries.add("\"" + words[0] + "\": {\"command\": \"sh\", \"args\": [" + args + "], \"env\": {\""
					+ Fixtures.MARKER + "\": \"" + this.fixtures.id() + "\"}}");
		}
		Path next = file.resolveSibling(file.getFileName() + ".new");
		Files.writeString(next, "{\"mcpServers\": {" + String.join(", ", entries) + "}}");
		Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
	}

}

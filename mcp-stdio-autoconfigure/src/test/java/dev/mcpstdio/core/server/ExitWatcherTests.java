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

package dev.mcpstdio.core.server;

import java.io.File;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ExitWatcher}: each exit is handled once, at once when seen.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class ExitWatcherTests {

	private final Fixtures fixtures;

	private final ExitWatcher exits = new ExitWatcher(Runnable::run);

	ExitWatcherTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@AfterEach
	void close() {
		this.exits.close();
	}

	@Test
	void anExitSomeoneSawIsHandledAtOnceAndOnce() throws Exception {
		AtomicInteger handled = new AtomicInteger();
		Process process = start("exit 0");
		this.exits.watch(process, handled::incrementAndGet);
		assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
		this.exits.check(process);
		// Handled on this thread, before the watcher's next look
		assertThat(handled.get()).isEqualTo(1);
		this.exits.check(process);
		Thread.sleep(3 * TimeUnit.NANOSECONDS.toMillis(ExitWatcher.INTERVAL_NANOS));
		assertThat(handled.get()).isEqualTo(1);
	}

	@Test
	void aLiveProcessIsNotTakenForEnded() throws Exception {
		AtomicInteger handled = new AtomicInteger();
		Process process = start("exec sleep 30");
		try {
			this.exits.watch(process, handled::incrementAndGet);
			this.exits.check(process);
			assertThat(handled.get()).isZero();
		}
		finally {
			process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
		}
	}

	@Test
	void anExitNobodySawIsNoticedByTheWatcher() throws Exception {
		AtomicInteger handled = new AtomicInteger();
		Process process = start("exit 0");
		this.exits.watch(process, handled::incrementAndGet);
		Await.that("the exit handled", () -> handled.get() > 0);
		assertThat(handled.get()).isEqualTo(1);
		this.exits.check(process);
		Thread.sleep(3 * TimeUnit.NANOSECONDS.toMillis(ExitWatcher.INTERVAL_NANOS));
		assertThat(handled.get()).isEqualTo(1);
	}

	private Process start(String script) throws IOException {
		ProcessBuilder builder = new ProcessBuilder("/bin/sh", "-c", script).redirectInput(new File("/dev/null"))
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.redirectError(ProcessBuilder.Redirect.DISCARD);
		builder.environment().put(Fixtures.MARKER, this.fixtures.id());
		return builder.start();
	}

}

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

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.mcpstdio.core.ExitCause;
import dev.mcpstdio.core.ExitInfo;
import dev.mcpstdio.core.StdioServerProcess;
import dev.mcpstdio.core.StdioServerSpec;
import dev.mcpstdio.lifecycle.RestartPolicy.Mode;
import dev.mcpstdio.test.TestHost;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link PolicyRestarter}, with a state machine that records what it is told:
 * an exit the policy does not restart fails the server, one it restarts is restarted by
 * the policy after its backoff (counted, with the stops seen), unless a stop or start
 * came first, and a policy that gives up fails the server.
 *
 * @author mcp-stdio authors
 */
class PolicyRestarterTests {

	private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

	private final Object lock = new Object();

	private final RecordingMachine machine = new RecordingMachine();

	private final ServerEvents events = new ServerEvents(
			new McpStdioServer(new McpStdioServerDefinition(StdioServerSpec.of("files", "true"), true, false,
					Duration.ofSeconds(5), RestartPolicy.NEVER), TestHost.shared()));

	@AfterEach
	void shutDown() {
		this.scheduler.shutdownNow();
	}

	@Test
	void anExitThePolicyDoesNotRestartFailsTheServer() {
		PolicyRestarter restarts = restarts(Mode.ON_FAILURE, 5);
		synchronized (this.lock) {
			restarts.exited(exit(0));
		}
		assertThat(this.machine.calls).containsExactly("failed");
	}

	@Test
	void anExitThePolicyRestartsIsRestartedByThePolicyAfterItsBackoff() throws Exception {
		PolicyRestarter restarts = restarts(Mode.ON_FAILURE, 5);
		this.machine.stops = 7;
		synchronized (this.lock) {
			restarts.exited(exit(3));
		}
		assertThat(this.machine.calls).containsExactly("restarting");
		assertThat(this.machine.started.await(30, TimeUnit.SECONDS)).isTrue();
		assertThat(this.machine.calls).containsExactly("restarting", "start by policy after 7 stops");
		assertThat(this.events.restarts()).isEqualTo(1);
	}

	@Test
	void aRestartThatIsNoLongerDueDoesNotStart() throws Exception {
		PolicyRestarter restarts = restarts(Mode.ALWAYS, 5);
		this.machine.due.set(false);
		synchronized (this.lock) {
			restarts.schedule();
		}
		assertThat(this.machine.started.await(1, TimeUnit.SECONDS)).isFalse();
		assertThat(this.machine.calls).containsExactly("restarting");
		assertThat(this.events.restarts()).isZero();
	}

	@Test
	void aFailedRestartIsCountedAndDoesNotEscape() throws Exception {
		PolicyRestarter restarts = restarts(Mode.ALWAYS, 5);
		this.machine.failStart = true;
		synchronized (this.lock) {
			restarts.schedule();
		}
		assertThat(this.machine.started.await(30, TimeUnit.SECONDS)).isTrue();
		assertThat(this.events.restarts()).isEqualTo(1);
	}

	@Test
	void thePolicyGivingUpFailsTheServer() {
		PolicyRestarter restarts = restarts(Mode.ALWAYS, 1);
		this.machine.due.set(false);
		synchronized (this.lock) {
			restarts.schedule();
			restarts.schedule();
		}
		assertThat(this.machine.calls).containsExactly("restarting", "failed");
	}

	private PolicyRestarter restarts(Mode mode, int maxRestarts) {
		RestartPolicy policy = new RestartPolicy(mode, maxRestarts, Duration.ofMinutes(1), Duration.ofMillis(50),
				Duration.ofSeconds(1));
		RestartSupervisor supervisor = new RestartSupervisor("files", policy, this.scheduler, System::nanoTime);
		SettleWait settle = new SettleWait(this.lock, Duration.ofSeconds(5), System::nanoTime, () -> false,
				() -> false);
		return new PolicyRestarter("files", this.lock, supervisor, Runnable::run, this.events, settle, this.machine);
	}

	private static ExitInfo exit(int code) {
		return new ExitInfo("files", 42, code, ExitCause.UNEXPECTED, Instant.now(), Duration.ofSeconds(1), List.of(),
				null);
	}

	private static final class RecordingMachine implements PolicyRestarter.Machine {

		private final List<String> calls = new CopyOnWriteArrayList<>();

		private final CountDownLatch started = new CountDownLatch(1);

		private final AtomicBoolean due = new AtomicBoolean(true);

		private volatile long stops;

		private volatile boolean failStart;

		@Override
		public void failed() {
			this.calls.add("failed");
		}

		@Override
		public void restarting() {
			this.calls.add("restarting");
		}

		@Override
		public boolean restartDue() {
			return this.due.get();
		}

		@Override
		public long stops() {
			return this.stops;
		}

		@Override
		public StdioServerProcess startProcess(boolean byPolicy, long stopsSeen) {
			this.calls.add("start " + (byPolicy ? "by policy" : "by a caller") + " after " + stopsSeen + " stops");
			this.started.countDown();
			if (this.failStart) {
				throw new IllegalStateException("could not start");
			}
			return null;
		}

	}

}

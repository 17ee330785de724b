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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.core.StdioServerProcess;
import dev.mcpstdio.core.StdioServerSpec;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.Demand;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.Limits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link ServerStarter}, with a state machine that counts its starts: callers
 * join the one start under way, the lifecycle's start is begun once until a stop forgets
 * it, a lazy server is made idle instead of started, and only an idle server is started
 * on demand.
 *
 * @author mcp-stdio authors
 */
class ServerStarterTests {

	private final ExecutorService tasks = Executors.newCachedThreadPool();

	private final Object lock = new Object();

	private final CountingMachine machine = new CountingMachine();

	@AfterEach
	void shutDown() {
		this.machine.release.countDown();
		this.tasks.shutdownNow();
	}

	@Test
	void callersJoinTheOneStartUnderWay() throws Exception {
		ServerStarter starts = starts(Demand.EAGER, true);
		CompletableFuture<Void> first = CompletableFuture.runAsync(starts::startServer, this.tasks);
		CompletableFuture<Void> second = CompletableFuture.runAsync(starts::startServer, this.tasks);
		assertThat(this.machine.begun.await(30, TimeUnit.SECONDS)).isTrue();
		Thread.sleep(200);
		assertThat(first).isNotDone();
		assertThat(second).isNotDone();
		this.machine.release.countDown();
		CompletableFuture.allOf(first, second).get(30, TimeUnit.SECONDS);
		assertThat(this.machine.starts).hasValue(1);
	}

	@Test
	void theLifecyclesStartIsBegunOnceUntilAStopForgetsIt() throws Exception {
		ServerStarter starts = starts(Demand.EAGER, true);
		this.machine.release.countDown();
		CompletableFuture<Void> begun = starts.startInBackground();
		assertThat(starts.startInBackground()).isSameAs(begun);
		begun.get(30, TimeUnit.SECONDS);
		starts.joinStart();
		assertThat(this.machine.starts).as("joined, not started again").hasValue(1);
		synchronized (this.lock) {
			starts.forget();
		}
		assertThat(starts.startInBackground()).isNotSameAs(begun);
	}

	@Test
	void aClientJoiningAFailedLifecycleStartIsToldWhyAndStartsNothing() {
		ServerStarter starts = starts(Demand.EAGER, true);
		this.machine.failure = new IllegalStateException("boom");
		this.machine.release.countDown();
		starts.startInBackground();
		assertThatIllegalStateException().isThrownBy(starts::joinStart).withMessage("boom");
		assertThat(this.machine.starts).hasValue(1);
	}

	@Test
	void aLazyServerIsMadeIdleInsteadOfStarted() throws Exception {
		ServerStarter starts = starts(new Demand(StartMode.LAZY, null), true);
		starts.startInBackground().get(30, TimeUnit.SECONDS);
		assertThat(this.machine.state).isEqualTo(ServerState.IDLE);
		assertThat(this.machine.starts).hasValue(0);
	}

	@Test
	void onlyAnIdleServerIsStartedOnDemand() {
		ServerStarter starts = starts(new Demand(StartMode.LAZY, null), true);
		this.machine.release.countDown();
		starts.startOnDemand();
		assertThat(this.machine.starts).as("stopped: stays stopped").hasValue(0);
		this.machine.state = ServerState.IDLE;
		starts.startOnDemand();
		assertThat(this.machine.starts).hasValue(1);
	}

	@Test
	void aDisabledServerIsNotStarted() {
		ServerStarter starts = starts(Demand.EAGER, false);
		assertThatExceptionOfType(McpServerNotRunningException.class).isThrownBy(starts::startServer)
			.withMessageContaining("is disabled");
		assertThat(this.machine.starts).hasValue(0);
	}

	private ServerStarter starts(Demand demand, boolean enabled) {
		McpStdioServerDefinition definition = new McpStdioServerDefinition(StdioServerSpec.of("files", "true"), enabled,
				false, Duration.ofSeconds(30), RestartPolicy.NEVER, demand, Limits.NONE);
		return new ServerStarter(this.lock, definition, this.tasks, this.machine);
	}

	private static final class CountingMachine implements ServerStarter.Machine {

		private final AtomicInteger starts = new AtomicInteger();

		private final CountDownLatch begun = new CountDownLatch(1);

		private final CountDownLatch release = new CountDownLatch(1);

		private volatile ServerState state = ServerState.STOPPED;

		private volatile RuntimeException failure;

		@Override
		public ServerState state() {
			return this.state;
		}

		@Override
		public boolean isRunning() {
			return this.state == ServerState.RUNNING;
		}

		@Override
		public void idleIfStopped() {
			if (this.state == ServerState.STOPPED) {
				this.state = ServerState.IDLE;
			}
		}

		@Override
		public long stops() {
			return 0;
		}

		@Override
		public StdioServerProcess startProcess(boolean byPolicy, long stopsSeen) {
			this.starts.incrementAndGet();
			this.begun.countDown();
			try {
				this.release.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			if (this.failure != null) {
				throw this.failure;
			}
			this.state = ServerState.RUNNING;
			return null;
		}

	}

}

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
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.mcpstdio.core.server.ExitCause;
import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.lifecycle.RestartPolicy.Mode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RestartPolicy} and {@link RestartBudget}: which exits restart, the
 * doubling backoff and its cap, the window and its expiry.
 *
 * @author mcp-stdio authors
 */
class RestartBudgetTests {

	private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

	private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

	@AfterEach
	void shutDown() {
		this.scheduler.shutdownNow();
	}

	@Test
	void theBackoffDoublesUpToItsCap() {
		RestartPolicy policy = new RestartPolicy(Mode.ALWAYS, 10, Duration.ofMinutes(1), Duration.ofMillis(500),
				Duration.ofSeconds(3));
		assertThat(List.of(policy.backoff(1), policy.backoff(2), policy.backoff(3), policy.backoff(4),
				policy.backoff(5), policy.backoff(30)))
			.containsExactly(Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2),
					Duration.ofSeconds(3), Duration.ofSeconds(3), Duration.ofSeconds(3));
	}

	@Test
	void eachPolicyRestartsItsOwnExits() {
		ExitInfo clean = exit(0, null);
		ExitInfo crashed = exit(3, null);
		ExitInfo failedWithZero = exit(0, "it closed its stdout while the process kept running");
		assertThat(policy(Mode.NEVER).shouldRestart(crashed)).isFalse();
		assertThat(policy(Mode.ON_FAILURE).shouldRestart(clean)).isFalse();
		assertThat(policy(Mode.ON_FAILURE).shouldRestart(crashed)).isTrue();
		assertThat(policy(Mode.ON_FAILURE).shouldRestart(failedWithZero)).isTrue();
		assertThat(policy(Mode.ALWAYS).shouldRestart(clean)).isTrue();
	}

	@Test
	void theSupervisorGivesUpPastMaxRestartsWithinTheWindowAndAgainAfterItExpires() {
		RestartBudget supervisor = new RestartBudget("files", new RestartPolicy(Mode.ALWAYS, 2, Duration.ofSeconds(10),
				Duration.ofMillis(100), Duration.ofSeconds(1)), this.scheduler, this.nanos::get);
		assertThat(supervisor.nextBackoff()).isEqualTo(Duration.ofMillis(100));
		this.nanos.addAndGet(Duration.ofSeconds(1).toNanos());
		assertThat(supervisor.nextBackoff()).isEqualTo(Duration.ofMillis(200));
		this.nanos.addAndGet(Duration.ofSeconds(1).toNanos());
		assertThat(supervisor.nextBackoff()).as("a third restart within 10s").isNull();
		// 10s after the first restart it leaves the window; the backoff starts over
		this.nanos.addAndGet(Duration.ofMillis(8500).toNanos());
		assertThat(supervisor.nextBackoff()).isEqualTo(Duration.ofMillis(200));
		assertThat(supervisor.nextBackoff()).as("two restarts within the window again").isNull();
	}

	@Test
	void aScheduledRestartRunsAfterItsBackoffUnlessCancelled() throws Exception {
		RestartBudget supervisor = new RestartBudget("files",
				new RestartPolicy(Mode.ALWAYS, 5, Duration.ofMinutes(1), Duration.ofMillis(50), Duration.ofSeconds(1)),
				this.scheduler, System::nanoTime);
		CountDownLatch ran = new CountDownLatch(1);
		supervisor.schedule(ran::countDown, supervisor.nextBackoff());
		assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
		CountDownLatch cancelled = new CountDownLatch(1);
		supervisor.schedule(cancelled::countDown, supervisor.nextBackoff());
		supervisor.cancel();
		assertThat(cancelled.await(500, TimeUnit.MILLISECONDS)).isFalse();
	}

	private static RestartPolicy policy(Mode mode) {
		return new RestartPolicy(mode, 5, Duration.ofMinutes(1), Duration.ofMillis(500), Duration.ofSeconds(30));
	}

	private static ExitInfo exit(int code, String failure) {
		return new ExitInfo("files", 42, code, ExitCause.UNEXPECTED, List.of(), failure);
	}

}

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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link SettleWait}: a send returns at once from a settled server, as soon as
 * a settling one settles, and at its bound (the start's, or the restart's backoff plus
 * start) when it does not.
 *
 * @author mcp-stdio authors
 */
class SettleWaitTests {

	private final Object lock = new Object();

	private final AtomicBoolean settling = new AtomicBoolean();

	private final AtomicBoolean restarting = new AtomicBoolean();

	@Test
	void aSettledServerIsNotWaitedFor() {
		SettleWait wait = wait(Duration.ofMinutes(5));
		long start = System.nanoTime();
		wait.await();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
	}

	@Test
	void theWaitEndsWhenTheServerSettlesAndTheLockIsNotified() throws Exception {
		SettleWait wait = wait(Duration.ofMinutes(5));
		begin(wait);
		CompletableFuture<Void> waited = CompletableFuture.runAsync(wait::await);
		Thread.sleep(200);
		assertThat(waited).as("still settling").isNotDone();
		synchronized (this.lock) {
			this.settling.set(false);
			this.lock.notifyAll();
		}
		waited.get(30, TimeUnit.SECONDS);
	}

	@Test
	void aStartIsWaitedForAtMostItsStartupTimeout() {
		SettleWait wait = wait(Duration.ofMillis(300));
		begin(wait);
		long start = System.nanoTime();
		wait.await();
		Duration waited = Duration.ofNanos(System.nanoTime() - start);
		assertThat(waited).isGreaterThanOrEqualTo(Duration.ofMillis(300)).isLessThan(Duration.ofSeconds(20));
	}

	@Test
	void aRestartIsWaitedForItsBackoffPlusItsStartupTimeout() {
		SettleWait wait = wait(Duration.ofMillis(300));
		this.settling.set(true);
		this.restarting.set(true);
		synchronized (this.lock) {
			wait.restartScheduled(Duration.ofMillis(700));
		}
		long start = System.nanoTime();
		wait.await();
		Duration waited = Duration.ofNanos(System.nanoTime() - start);
		assertThat(waited).isGreaterThanOrEqualTo(Duration.ofMillis(900)).isLessThan(Duration.ofSeconds(20));
	}

	@Test
	void anInterruptEndsTheWaitAndIsKept() throws Exception {
		SettleWait wait = wait(Duration.ofMinutes(5));
		begin(wait);
		AtomicBoolean interrupted = new AtomicBoolean();
		Thread thread = new Thread(() -> {
			wait.await();
			interrupted.set(Thread.currentThread().isInterrupted());
		});
		thread.start();
		Thread.sleep(200);
		thread.interrupt();
		thread.join(30_000);
		assertThat(thread.isAlive()).isFalse();
		assertThat(interrupted).isTrue();
	}

	@Test
	void aSendWaitsThroughOneStartNotThroughTheRestartsAfterIt() throws Exception {
		SettleWait wait = wait(Duration.ofMinutes(5));
		this.settling.set(true);
		this.restarting.set(true);
		synchronized (this.lock) {
			wait.restartScheduled(Duration.ofMillis(100));
		}
		CompletableFuture<Void> waited = CompletableFuture.runAsync(wait::await);
		Thread.sleep(200);
		assertThat(waited).as("waits for the restart's start").isNotDone();
		synchronized (this.lock) {
			// the restart's start begins, and its process exits: the policy schedules
			// the next restart, with a long backoff
			this.restarting.set(false);
			wait.startBegun();
			this.lock.notifyAll();
		}
		Thread.sleep(200);
		assertThat(waited).as("waits for the start under way").isNotDone();
		synchronized (this.lock) {
			wait.startEnded();
			this.restarting.set(true);
			wait.restartScheduled(Duration.ofMinutes(10));
			this.lock.notifyAll();
		}
		// not through the next backoff: at once, bounded generously for a loaded machine
		waited.get(30, TimeUnit.SECONDS);
	}

	private void begin(SettleWait wait) {
		synchronized (this.lock) {
			this.settling.set(true);
			wait.startBegun();
		}
	}

	private SettleWait wait(Duration startupTimeout) {
		return new SettleWait(this.lock, startupTimeout, System::nanoTime, this.settling::get, this.restarting::get);
	}

}

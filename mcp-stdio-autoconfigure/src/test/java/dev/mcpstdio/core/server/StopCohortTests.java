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

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.tree.ProcReader;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link StopCohort}: on its own, and as the stops of a host use it.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class StopCohortTests {

	private final Fixtures fixtures;

	private final List<StdioServerProcess> started = new ArrayList<>();

	/** A host of its own: its stops are the test's alone. */
	private final ServerHost host = ServerHost.builder().application("mcp-stdio-tests").build();

	StopCohortTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@AfterEach
	void noProcessLeftBehind() {
		Fixtures.cleanUp(this.started, StdioServerProcess::stop, this.host::close);
	}

	@Test
	void aStopAloneWaitsForNoOne() {
		StopCohort cohort = new StopCohort();
		// a stop joins, and leaves once past step 3, before it waits for the others
		cohort.join();
		cohort.leave();
		long begin = System.nanoTime();
		assertThat(cohort.awaitOthers(System.nanoTime() + TimeUnit.SECONDS.toNanos(10))).isTrue();
		assertThat(millisSince(begin)).isLessThan(1000);
	}

	@Test
	void theWaitEndsWhenTheLastOtherLeaves() throws Exception {
		StopCohort cohort = new StopCohort();
		cohort.join();
		cohort.join();
		CountDownLatch waiting = new CountDownLatch(1);
		CompletableFuture<Boolean> waited = CompletableFuture.supplyAsync(() -> {
			cohort.leave();
			waiting.countDown();
			return cohort.awaitOthers(System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
		});
		assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
		Thread.sleep(200);
		assertThat(waited).as("still waiting for the other stop").isNotDone();
		cohort.leave();
		assertThat(waited.get(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void theWaitEndsAtTheDeadlineWhateverTheOthersDo() {
		StopCohort cohort = new StopCohort();
		cohort.join();
		cohort.join();
		cohort.leave();
		long begin = System.nanoTime();
		assertThat(cohort.awaitOthers(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300))).isFalse();
		assertThat(millisSince(begin)).isBetween(250L, 10_000L);
	}

	@Test
	void anInterruptEndsTheWaitAndIsKept() throws Exception {
		StopCohort cohort = new StopCohort();
		cohort.join();
		cohort.join();
		cohort.leave();
		CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
		Thread waiter = new Thread(() -> {
			cohort.awaitOthers(System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
			interrupted.complete(Thread.currentThread().isInterrupted());
		});
		waiter.start();
		Thread.sleep(100);
		waiter.interrupt();
		assertThat(interrupted.get(10, TimeUnit.SECONDS)).isTrue();
	}

	@Test
	void aServerStoppedAloneHasItsTreeEndedWithoutWaiting() {
		StdioServerProcess early = start("early", "0", "child", Duration.ofSeconds(10));
		long child = childOf(early);
		// no other stop in its host's cohort: not its 10 s of step 3
		assertThat(timed(early::stop)).isLessThan(5000);
		assertThat(isAlive(child)).as("the early server's child").isFalse();
		assertThat(early.exitInfo().cause()).isEqualTo(ExitCause.CLEAN);
	}

	@Test
	void aServerWhoseRootExitedFirstHasItsTreeEndedOnceTheOthersRootsHaveExitedToo() throws Exception {
		// Exits at once on EOF, leaving a child that only a signal ends
		StdioServerProcess early = start("early", "0", "child", Duration.ofSeconds(10));
		// Exits 1.5 s after EOF
		StdioServerProcess late = start("late", "1.5", "none", Duration.ofSeconds(10));
		long child = childOf(early);
		CompletableFuture<Long> lateStop = stopOnceBegun(late);
		long earlyMillis = timed(early::stop);
		long lateMillis = lateStop.get(30, TimeUnit.SECONDS);
		// The early server's tree was looked at once the late root had exited, and its
		// leftover child ended then
		assertThat(earlyMillis).as("the early server's stop, the late one taking %d ms", lateMillis)
			.isGreaterThanOrEqualTo(1000);
		assertThat(isAlive(child)).as("the early server's child").isFalse();
		assertThat(early.exitInfo().cause()).isEqualTo(ExitCause.CLEAN);
		assertThat(late.exitInfo().cause()).isEqualTo(ExitCause.CLEAN);
		assertThat(this.fixtures.alive()).isEmpty();
	}

	@Test
	void theWaitForTheOthersEndsWithTheStopsOwnStdinCloseTimeout() throws Exception {
		StdioServerProcess early = start("early", "0", "child", Duration.ofMillis(500));
		// Ignores EOF: only the SIGTERM 8 s after its stdin closed ends it
		StdioServerProcess deaf = this.host.start(this.fixtures.spec("deaf", "ignores-eof.sh")
			.withShutdown(new ShutdownTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(8), Duration.ofSeconds(2))),
				MessageListener.NONE);
		this.started.add(deaf);
		long child = childOf(early);
		CompletableFuture<Long> deafStop = stopOnceBegun(deaf);
		long earlyMillis = timed(early::stop);
		// Its leftover child is ended within the early server's own bounds, not the
		// deaf one's 8 s
		assertThat(earlyMillis).isLessThan(6000);
		assertThat(isAlive(child)).as("the early server's child").isFalse();
		assertThat(isAlive(deaf.pid())).as("the deaf server, still in its stdin-close wait").isTrue();
		assertThat(deafStop.get(30, TimeUnit.SECONDS)).isGreaterThanOrEqualTo(earlyMillis);
		assertThat(deaf.exitInfo().cause()).isEqualTo(ExitCause.TERMINATED);
	}

	/**
	 * Stop a server, and return once its stop has begun: it is one of the cohort from
	 * then on.
	 */
	private static CompletableFuture<Long> stopOnceBegun(StdioServerProcess process) throws InterruptedException {
		CountDownLatch begun = new CountDownLatch(1);
		process.onStopStep((step) -> begun.countDown());
		CompletableFuture<Long> stop = CompletableFuture.supplyAsync(() -> timed(process::stop));
		assertThat(begun.await(30, TimeUnit.SECONDS)).isTrue();
		return stop;
	}

	/** The pid of the child a fixture names on stderr. */
	private static long childOf(StdioServerProcess process) {
		Await.that("a child named on stderr",
				() -> process.stderrTail().stream().anyMatch((line) -> line.startsWith("child ")));
		String line = process.stderrTail().stream().filter((named) -> named.startsWith("child ")).findFirst().get();
		long pid = Long.parseLong(line.substring("child ".length()).trim());
		assertThat(isAlive(pid)).as("the child, before the stop").isTrue();
		return pid;
	}

	private static boolean isAlive(long pid) {
		ProcReader.Stat stat = ProcReader.system().stat(pid);
		return stat != null && !stat.isZombie();
	}

	private StdioServerProcess start(String name, String delay, String child, Duration stdinClose) {
		StdioServerSpec spec = SpecDefaults.of(name, "sh", Fixtures.script("exits-after-eof.sh"), delay, child)
			.withEnv(Map.of(Fixtures.MARKER, this.fixtures.id()))
			.withShutdown(new ShutdownTimeouts(Duration.ofSeconds(5), stdinClose, Duration.ofSeconds(2)));
		StdioServerProcess process = this.host.start(spec, MessageListener.NONE);
		this.started.add(process);
		return process;
	}

	private static long timed(Runnable stop) {
		long begin = System.nanoTime();
		stop.run();
		return millisSince(begin);
	}

	private static long millisSince(long begin) {
		return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin);
	}

}

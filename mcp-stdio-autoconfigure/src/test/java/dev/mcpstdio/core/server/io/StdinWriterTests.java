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

package dev.mcpstdio.core.server.io;

import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.mcpstdio.test.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link StdinWriter} over an in-memory pipe of 64 bytes, so that a write
 * blocks as on a server that does not read.
 *
 * @author mcp-stdio authors
 */
class StdinWriterTests {

	private final PipedInputStream server = new PipedInputStream(64);

	private final AtomicInteger blocked = new AtomicInteger();

	private final ExecutorService tasks = Executors.newCachedThreadPool();

	private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

	private final CountDownLatch testEnded = new CountDownLatch(1);

	private StdinWriter writer;

	@BeforeEach
	void start() throws IOException {
		PipedOutputStream stdin = new PipedOutputStream(this.server);
		this.writer = new StdinWriter(stdin, Duration.ofMillis(300), this.blocked::incrementAndGet, this.tasks,
				this.timer);
	}

	@AfterEach
	void stop() throws Exception {
		this.testEnded.countDown();
		this.writer.close(() -> new IOException("closed"));
		// A closed reading end fails every write still blocked, within a second
		this.server.close();
		this.writer.closed.get(5, TimeUnit.SECONDS);
		this.tasks.shutdown();
		this.timer.shutdownNow();
		assertThat(this.tasks.awaitTermination(5, TimeUnit.SECONDS)).as("no task left writing").isTrue();
	}

	@Test
	void nothingRunsWhileNothingIsWritten() throws Exception {
		assertThat(this.writer.tryWriteDirect(StdinWriter.line("{\"a\":1}"))).isTrue();
		assertThat(read(8)).isEqualTo("{\"a\":1}\n");
		assertThat(this.writer.draining.get()).isFalse();
		assertThat(((ThreadPoolExecutor) this.tasks).getActiveCount()).isZero();
	}

	@Test
	void theTaskThatWritesTheQueueEndsOnceItIsEmpty() throws Exception {
		byte[] big = StdinWriter.line("q".repeat(200));
		writeDirectInBackground(big);
		awaitWriting();
		QueuedWrite first = this.writer.enqueue(StdinWriter.line("first"), TimeUnit.SECONDS.toNanos(1));
		QueuedWrite second = this.writer.enqueue(StdinWriter.line("second"), TimeUnit.SECONDS.toNanos(1));
		assertThat(this.writer.draining.get()).isTrue();
		assertThat(read(big.length + 13)).isEqualTo("q".repeat(200) + "\nfirst\nsecond\n");
		first.future.get(5, TimeUnit.SECONDS);
		second.future.get(5, TimeUnit.SECONDS);
		Await.within(Duration.ofSeconds(10)).until("the queue drained", () -> !this.writer.draining.get());
		// and the next send writes directly again
		assertThat(this.writer.tryWriteDirect(StdinWriter.line("third"))).isTrue();
		assertThat(read(6)).isEqualTo("third\n");
	}

	@Test
	void closeWithNothingUnderWayClosesAtOnce() throws Exception {
		this.writer.close(() -> new IOException("closed"));
		assertThat(this.writer.closed).isDone();
		assertThat(this.server.read()).isEqualTo(-1);
	}

	@Test
	void anIdleWriterWritesOnTheCallersThread() throws Exception {
		assertThat(this.writer.tryWriteDirect(StdinWriter.line("{\"a\":1}"))).isTrue();
		assertThat(read(8)).isEqualTo("{\"a\":1}\n");
	}

	@Test
	void aSendBehindABlockedWriteIsQueuedAndWrittenInOrderOnceTheServerReads() throws Exception {
		byte[] big = StdinWriter.line("x".repeat(200));
		CompletableFuture<Boolean> direct = writeDirectInBackground(big);
		awaitWriting();
		assertThat(this.writer.tryWriteDirect(StdinWriter.line("second"))).as("the lock is held").isFalse();
		QueuedWrite queued = this.writer.enqueue(StdinWriter.line("second"), TimeUnit.SECONDS.toNanos(1));
		assertThat(queued.future).isNotDone();
		assertThat(read(big.length)).isEqualTo("x".repeat(200) + "\n");
		assertThat(direct.get(5, TimeUnit.SECONDS)).isTrue();
		queued.future.get(5, TimeUnit.SECONDS);
		assertThat(read(7)).isEqualTo("second\n");
	}

	@Test
	void aDirectWriteBlockedLongerThanTheSendTimeoutIsReportedOnce() throws Exception {
		writeDirectInBackground(StdinWriter.line("y".repeat(500)));
		Await.within(Duration.ofSeconds(10)).holds(() -> this.blocked.get() > 0);
		// a second report would come within this
		Thread.sleep(500);
		assertThat(this.blocked.get()).isEqualTo(1);
	}

	@Test
	void closeWaitsForTheWriteUnderWayAndFailsTheQueuedOnes() throws Exception {
		byte[] big = StdinWriter.line("z".repeat(200));
		writeDirectInBackground(big);
		awaitWriting();
		QueuedWrite queued = this.writer.enqueue(StdinWriter.line("late"), TimeUnit.SECONDS.toNanos(1));
		this.writer.close(() -> new IllegalStateException("stopped"));
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> queued.future.get(5, TimeUnit.SECONDS))
			.withCauseInstanceOf(IllegalStateException.class)
			.withMessageContaining("stopped");
		assertThat(this.writer.closed).isNotDone();
		// the whole line arrives, then the end of the stream
		assertThat(read(big.length)).isEqualTo("z".repeat(200) + "\n");
		this.writer.closed.get(5, TimeUnit.SECONDS);
		assertThat(this.server.read()).isEqualTo(-1);
	}

	@Test
	void aWriteQueuedAfterCloseFailsAtOnce() throws Exception {
		this.writer.close(() -> new IOException("closed"));
		QueuedWrite write = this.writer.enqueue(StdinWriter.line("after"), TimeUnit.SECONDS.toNanos(1));
		assertThat(write.future).isCompletedExceptionally();
		assertThat(this.writer.tryWriteDirect(StdinWriter.line("after"))).isFalse();
	}

	/**
	 * Write on a thread of the test's own, so that a write left blocked ends with it. The
	 * thread stays until the test ends: the in-memory pipe fails a read once the last
	 * thread that wrote to it is gone.
	 */
	private CompletableFuture<Boolean> writeDirectInBackground(byte[] line) {
		CompletableFuture<Boolean> result = new CompletableFuture<>();
		Thread sender = new Thread(() -> {
			try {
				result.complete(this.writer.tryWriteDirect(line));
			}
			catch (IOException ex) {
				result.completeExceptionally(ex);
			}
			try {
				this.testEnded.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}, "test-sender");
		sender.setDaemon(true);
		sender.start();
		return result;
	}

	private void awaitWriting() {
		Await.within(Duration.ofSeconds(10)).until("a write under way", this.writer::isWriting);
	}

	private String read(int bytes) throws IOException {
		byte[] buffer = this.server.readNBytes(bytes);
		return new String(buffer, StandardCharsets.UTF_8);
	}

}

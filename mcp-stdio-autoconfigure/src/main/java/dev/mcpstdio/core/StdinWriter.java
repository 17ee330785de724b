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

package dev.mcpstdio.core;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * The one thread that writes to a server's stdin. Sends queue their lines here, so that a
 * caller can give up on a server that does not read instead of blocking forever, and
 * stdin is closed by this thread after its last write, so a close can never cut a write
 * in half.
 *
 * @author mcp-stdio authors
 */
final class StdinWriter implements Runnable {

	/** How many messages may wait for the writer. */
	static final int QUEUE_CAPACITY = 1024;

	private static final Write CLOSE = new Write(new byte[0]);

	private final OutputStream stdin;

	private final BlockingQueue<Write> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);

	private final Object idle = new Object();

	private volatile boolean busy;

	private volatile boolean closeRequested;

	/** The write taken from the queue that waits for a direct write to finish. */
	private volatile @Nullable Write held;

	private volatile boolean closing;

	private final CompletableFuture<Void> closed = new CompletableFuture<>();

	private final ReentrantLock writeLock = new ReentrantLock();

	private final long sendTimeoutNanos;

	private final Runnable onBlocked;

	/** When the direct write under way began, 0 when none is. */
	private volatile long directSince;

	private volatile boolean blockedReported;

	/**
	 * Create a writer.
	 * @param stdin the server's stdin
	 * @param sendTimeout how long a write may block
	 * @param onBlocked called once when a direct write stays blocked longer than that
	 */
	StdinWriter(OutputStream stdin, Duration sendTimeout, Runnable onBlocked) {
		this.stdin = stdin;
		this.sendTimeoutNanos = sendTimeout.toNanos();
		this.onBlocked = onBlocked;
	}

	/**
	 * Write a line on the caller's thread, if nothing is queued or being written.
	 * @param line the line, its newline included
	 * @return whether it was written; {@code false} when it must be queued
	 * @throws IOException if the write failed
	 */
	boolean tryWriteDirect(byte[] line) throws IOException {
		if (this.closeRequested || !this.queue.isEmpty() || !this.writeLock.tryLock()) {
			return false;
		}
		try {
			if (this.closeRequested || this.closing || !this.queue.isEmpty()) {
				return false;
			}
			this.busy = true;
			this.directSince = System.nanoTime();
			this.stdin.write(line);
			this.stdin.flush();
			return true;
		}
		finally {
			this.directSince = 0;
			this.busy = false;
			this.writeLock.unlock();
			signalIdle();
		}
	}

	/**
	 * Write a line: on the caller's thread when nothing is queued or being written, else
	 * through the queue, waiting at most the send timeout for it.
	 * @param line the line, its newline included
	 * @throws WriteTimeoutException if it was not written in time; its message says
	 * whether it will still arrive
	 * @throws IOException if the write failed
	 * @throws InterruptedException if interrupted; a queued line is taken back if it can
	 * be
	 */
	void write(byte[] line) throws IOException, InterruptedException {
		if (tryWriteDirect(line)) {
			return;
		}
		long deadline = System.nanoTime() + this.sendTimeoutNanos;
		Write write = enqueue(line, this.sendTimeoutNanos);
		try {
			write.future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			write.cancel();
			throw ex;
		}
		catch (TimeoutException ex) {
			throw new WriteTimeoutException(write.cancel() ? "the message was not sent"
					: "the message is still being written and will arrive late");
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof IOException io) {
				throw io;
			}
			if (ex.getCause() instanceof RuntimeException runtime) {
				// the error a stop or an exit gave the queued writes
				throw runtime;
			}
			throw new IOException(ex.getCause());
		}
	}

	static byte[] line(String message) {
		byte[] text = message.getBytes(StandardCharsets.UTF_8);
		byte[] line = new byte[text.length + 1];
		System.arraycopy(text, 0, line, 0, text.length);
		line[text.length] = '\n';
		return line;
	}

	/**
	 * Queue a line.
	 * @param line the line, its newline included
	 * @param timeoutNanos how long to wait for room in the queue
	 * @return the write, whose future completes when the line is written
	 * @throws InterruptedException if interrupted while waiting for room
	 */
	Write enqueue(byte[] line, long timeoutNanos) throws InterruptedException {
		Write write = new Write(line);
		if (this.closeRequested) {
			write.fail(new IOException("stdin is closed"));
			return write;
		}
		if (!this.queue.offer(write, timeoutNanos, TimeUnit.NANOSECONDS)) {
			write.cancel();
			write.fail(new WriteTimeoutException("the message was not sent: the send queue stayed full"));
		}
		else if (this.closeRequested) {
			// Raced with close(): the writer may never see this write
			if (this.queue.remove(write)) {
				write.fail(new IOException("stdin is closed"));
			}
		}
		return write;
	}

	@Override
	public void run() {
		try {
			while (true) {
				Write write = this.queue.poll(100, TimeUnit.MILLISECONDS);
				watchDirectWrite();
				if (write == null) {
					if (this.closeRequested && this.queue.isEmpty()) {
						break;
					}
					continue;
				}
				if (write == CLOSE) {
					break;
				}
				this.held = write;
				lock();
				try {
					this.held = null;
					// close() fails a write held here like those still queued; one it
					// came too early to see is not begun either
					if (this.closeRequested && write.cancel()) {
						write.fail(new IOException("stdin is closed"));
					}
					if (!write.start()) {
						continue;
					}
					this.busy = true;
					this.stdin.write(write.line);
					this.stdin.flush();
					write.future.complete(null);
				}
				catch (IOException ex) {
					write.future.completeExceptionally(ex);
				}
				finally {
					this.busy = false;
					this.writeLock.unlock();
					signalIdle();
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			closeAfterDirectWrite();
			failQueued((write) -> new IOException("stdin is closed"));
			signalIdle();
		}
	}

	/**
	 * Close stdin, but only once a direct write under way is done: a close must never cut
	 * a line in half. A direct write that stays blocked ends when the process does.
	 */
	private void closeAfterDirectWrite() {
		boolean locked = false;
		try {
			lock();
			locked = true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		try {
			closeQuietly();
		}
		finally {
			if (locked) {
				this.writeLock.unlock();
			}
		}
	}

	/**
	 * Take the write lock, watching the direct write that holds it meanwhile.
	 * @throws InterruptedException if interrupted
	 */
	private void lock() throws InterruptedException {
		while (!this.writeLock.tryLock(100, TimeUnit.MILLISECONDS)) {
			watchDirectWrite();
		}
	}

	private void watchDirectWrite() {
		long since = this.directSince;
		if (since != 0 && System.nanoTime() - since > this.sendTimeoutNanos && !this.blockedReported) {
			this.blockedReported = true;
			this.onBlocked.run();
		}
	}

	/**
	 * Close stdin once the write under way, if any, is done; queued writes fail with the
	 * given error.
	 * @param error makes the error of each queued write
	 */
	void close(Function<Write, Exception> error) {
		this.closeRequested = true;
		Write taken = this.held;
		if (taken != null && taken.cancel()) {
			taken.fail(error.apply(taken));
		}
		failQueued(error);
		this.queue.offer(CLOSE);
	}

	private void failQueued(Function<Write, Exception> error) {
		Write write;
		while ((write = this.queue.poll()) != null) {
			if (write != CLOSE && write.cancel()) {
				write.fail(error.apply(write));
			}
		}
	}

	private void closeQuietly() {
		// Set before the close: the process may exit, and be classified, before close()
		// returns
		this.closing = true;
		try {
			this.stdin.close();
		}
		catch (IOException ex) {
			// Already broken: nothing left to close
		}
		this.closed.complete(null);
	}

	/**
	 * Return whether stdin is closed or being closed by the writer.
	 * @return whether the server has been or is being sent EOF
	 */
	boolean isClosing() {
		return this.closing;
	}

	CompletableFuture<Void> closed() {
		return this.closed;
	}

	boolean isWriting() {
		return this.busy;
	}

	/**
	 * Wait until nothing is queued or being written.
	 * @param deadlineNanos the {@link System#nanoTime()} to give up at
	 * @return whether the writer is idle
	 */
	boolean awaitIdle(long deadlineNanos) {
		synchronized (this.idle) {
			while (this.busy || !this.queue.isEmpty()) {
				long left = deadlineNanos - System.nanoTime();
				if (left <= 0 || this.closed.isDone()) {
					return !this.busy && this.queue.isEmpty();
				}
				try {
					this.idle.wait(Math.max(1, Math.min(left / 1_000_000L, 50)));
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return false;
				}
			}
			return true;
		}
	}

	private void signalIdle() {
		synchronized (this.idle) {
			this.idle.notifyAll();
		}
	}

	/** One line to write. */
	static final class Write {

		private static final int QUEUED = 0;

		private static final int WRITING = 1;

		private static final int CANCELLED = 2;

		final byte[] line;

		final CompletableFuture<Void> future = new CompletableFuture<>();

		private final AtomicInteger state = new AtomicInteger(QUEUED);

		Write(byte[] line) {
			this.line = line;
		}

		boolean start() {
			return this.state.compareAndSet(QUEUED, WRITING);
		}

		/**
		 * Take the write back if the writer has not started it.
		 * @return whether it will never be written
		 */
		boolean cancel() {
			return this.state.compareAndSet(QUEUED, CANCELLED) || this.state.get() == CANCELLED;
		}

		boolean isWriting() {
			return this.state.get() == WRITING;
		}

		void fail(Exception ex) {
			this.future.completeExceptionally(ex);
		}

	}

	/** A write that could not be made within the send timeout. */
	static final class WriteTimeoutException extends IOException {

		WriteTimeoutException(String message) {
			super(message);
		}

	}

}

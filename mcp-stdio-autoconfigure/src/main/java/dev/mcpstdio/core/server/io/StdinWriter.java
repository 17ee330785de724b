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
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import dev.mcpstdio.core.support.Threads;
import org.jspecify.annotations.Nullable;

/**
 * Writes lines to a server's stdin, one at a time, bounded by the send timeout.
 *
 * @author mcp-stdio authors
 */
final class StdinWriter {

	// On the sender's thread when nothing is queued or being written, else through a
	// bounded queue that a task writes in order, so that a caller can give up on a server
	// that does not read. Stdin is closed only once no write is under way: a close never
	// cuts a write.

	/** How many messages may wait for the writer. */
	static final int QUEUE_CAPACITY = 1024;

	private final OutputStream stdin;

	private final BlockingQueue<QueuedWrite> queue = new LinkedBlockingQueue<>(QUEUE_CAPACITY);

	private final Object idle = new Object();

	private final Executor tasks;

	/** Whether a task is writing the queue. */
	final AtomicBoolean draining = new AtomicBoolean();

	/** Notices a direct write blocked longer than the send timeout. */
	private final BlockedWriteCheck blockedCheck;

	private volatile boolean busy;

	private volatile boolean closeRequested;

	/** What a write that close() did not reach fails with; set before the request. */
	private volatile @Nullable Supplier<? extends Exception> closeError;

	/** The write taken from the queue that waits for a direct write to finish. */
	private volatile @Nullable QueuedWrite held;

	private volatile boolean closing;

	/** Completed once stdin is closed. */
	final CompletableFuture<Void> closed = new CompletableFuture<>();

	private final ReentrantLock writeLock = new ReentrantLock();

	private final long sendTimeoutNanos;

	/**
	 * Create a writer.
	 * @param stdin the server's stdin
	 * @param sendTimeout how long a write may block
	 * @param onBlocked called once when a direct write stays blocked longer than that
	 * @param tasks runs the task that writes queued lines
	 * @param timer runs the check of a blocked direct write
	 */
	StdinWriter(OutputStream stdin, Duration sendTimeout, Runnable onBlocked, Executor tasks,
			ScheduledExecutorService timer) {
		this.stdin = stdin;
		this.sendTimeoutNanos = sendTimeout.toNanos();
		this.tasks = tasks;
		this.blockedCheck = new BlockedWriteCheck(timer, this.sendTimeoutNanos, onBlocked);
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
			this.blockedCheck.writing();
			this.stdin.write(line);
			this.stdin.flush();
			return true;
		}
		finally {
			this.blockedCheck.written();
			this.busy = false;
			unlock();
		}
	}

	/**
	 * Write a line: on the caller's thread when nothing is queued or being written, else
	 * through the queue, waiting at most the send timeout for it.
	 * @param line the line, its newline included
	 * @throws ProcessPipes.WriteTimeoutException if it was not written in time; its
	 * message says whether it will still arrive
	 * @throws IOException if the write failed
	 * @throws InterruptedException if interrupted; a queued line is taken back if it can
	 * be
	 */
	void write(byte[] line) throws IOException, InterruptedException {
		if (tryWriteDirect(line)) {
			return;
		}
		long deadline = System.nanoTime() + this.sendTimeoutNanos;
		QueuedWrite write = enqueue(line, this.sendTimeoutNanos);
		try {
			write.future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			write.cancel();
			throw ex;
		}
		catch (TimeoutException ex) {
			throw new ProcessPipes.WriteTimeoutException(write.cancel() ? "the message was not sent"
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
		return (message + "\n").getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Queue a line, and start writing the queue unless that is under way.
	 * @param line the line, its newline included
	 * @param timeoutNanos how long to wait for room in the queue
	 * @return the write, whose future completes when the line is written
	 * @throws InterruptedException if interrupted while waiting for room
	 */
	QueuedWrite enqueue(byte[] line, long timeoutNanos) throws InterruptedException {
		QueuedWrite write = new QueuedWrite(line);
		if (this.closeRequested) {
			write.future.completeExceptionally(new IOException("stdin is closed"));
			return write;
		}
		if (!this.queue.offer(write, timeoutNanos, TimeUnit.NANOSECONDS)) {
			write.cancel();
			write.future.completeExceptionally(
					new ProcessPipes.WriteTimeoutException("the message was not sent: the send queue stayed full"));
		}
		else if (this.closeRequested) {
			// Raced with close(): no task may ever see this write
			if (this.queue.remove(write)) {
				write.future.completeExceptionally(new IOException("stdin is closed"));
			}
		}
		else {
			startDraining();
		}
		return write;
	}

	private void startDraining() {
		if (this.draining.compareAndSet(false, true)) {
			try {
				this.tasks.execute(this::drain);
			}
			catch (RejectedExecutionException ex) {
				this.draining.set(false);
				failQueued(() -> new IOException("no thread is left to write to stdin", ex));
			}
		}
	}

	/** Write the queue in order until it is empty, then end. */
	private void drain() {
		try {
			while (true) {
				QueuedWrite write = this.queue.poll();
				if (write == null) {
					this.draining.set(false);
					// A line queued after the poll may have seen this task still running
					if (this.queue.isEmpty() || !this.draining.compareAndSet(false, true)) {
						return;
					}
					continue;
				}
				writeQueued(write);
			}
		}
		catch (RuntimeException | Error ex) {
			this.draining.set(false);
			failQueued(() -> new IOException("writing to stdin failed", ex));
			throw ex;
		}
	}

	private void writeQueued(QueuedWrite write) {
		this.held = write;
		// close() fails the write it finds held; one taken from the queue after close()
		// emptied it and held only once close() had looked sees the request here (both
		// fields volatile: one of the two sees the other)
		if (this.closeRequested && write.cancel()) {
			this.held = null;
			write.future.completeExceptionally(closeError());
			return;
		}
		// A direct write may hold the lock: it ends, or fails when the process does
		this.writeLock.lock();
		try {
			this.held = null;
			// close() fails a write held here like those still queued; one it came too
			// early to see is not begun either
			if (this.closeRequested && write.cancel()) {
				write.future.completeExceptionally(closeError());
			}
			if (!write.start()) {
				return;
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
			unlock();
		}
	}

	/**
	 * Release the write lock; if a close was asked for meanwhile, close stdin now that no
	 * write is under way.
	 */
	private void unlock() {
		this.writeLock.unlock();
		closeUnlessWriting(this.closeRequested && !this.closed.isDone() && this.queue.isEmpty());
	}

	/**
	 * Close stdin if asked and no write holds the lock: whoever holds it closes it. Then
	 * wake those that {@link #awaitIdle(long) wait until nothing is written}.
	 */
	private void closeUnlessWriting(boolean close) {
		if (close && this.writeLock.tryLock()) {
			try {
				closeQuietly();
			}
			finally {
				this.writeLock.unlock();
			}
		}
		synchronized (this.idle) {
			this.idle.notifyAll();
		}
	}

	/**
	 * Close stdin once the write under way, if any, is done; queued writes fail with the
	 * given error.
	 * @param error makes the error of each queued write
	 */
	void close(Supplier<? extends Exception> error) {
		this.closeError = error;
		this.closeRequested = true;
		this.blockedCheck.cancel();
		QueuedWrite taken = this.held;
		if (taken != null && taken.cancel()) {
			taken.future.completeExceptionally(error.get());
		}
		failQueued(error);
		// Whoever holds the lock now closes stdin when it lets go
		closeUnlessWriting(true);
	}

	private Exception closeError() {
		Supplier<? extends Exception> error = this.closeError;
		return (error != null) ? error.get() : new IOException("stdin is closed");
	}

	private void failQueued(Supplier<? extends Exception> error) {
		QueuedWrite write;
		while ((write = this.queue.poll()) != null) {
			if (write.cancel()) {
				write.future.completeExceptionally(error.get());
			}
		}
	}

	private void closeQuietly() {
		if (this.closed.isDone()) {
			return;
		}
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
	 * Return whether stdin is closed or being closed.
	 * @return whether the server has been or is being sent EOF
	 */
	boolean isClosing() {
		return this.closing;
	}

	boolean isWriting() {
		return this.busy;
	}

	/**
	 * Wait until nothing is queued or being written.
	 * @param deadlineNanos the {@link System#nanoTime()} to give up at
	 */
	void awaitIdle(long deadlineNanos) {
		Threads.awaitOn(this.idle, deadlineNanos, 50,
				() -> (!this.busy && this.queue.isEmpty()) || this.closed.isDone());
	}

}

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
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import dev.mcpstdio.core.secrets.SecretSanitizer;

/**
 * Drains a server's stderr to the log and keeps its last lines.
 *
 * @author mcp-stdio authors
 */
final class StderrTail implements Runnable {

	// While the process runs the shared StderrPoller reads what is there, never blocking;
	// once it has ended, finish() reads the rest on a task thread. Lines are sanitized on
	// their way out.

	/** A longer stderr line is cut: stderr is for humans, not for data. */
	static final int MAX_LINE_LENGTH = 8 * 1024;

	private final InputStream stderr;

	private final StderrLog.Channel log;

	private final int capacity;

	private final ArrayDeque<String> tail;

	/** Counted down once stderr reached its end: a child may hold it open. */
	final CountDownLatch done = new CountDownLatch(1);

	/** Serializes the poller's reads with the hand-over to {@link #run()}. */
	private final Object readLock = new Object();

	/** The line being read; grows up to {@link #MAX_LINE_LENGTH}. */
	private byte[] line = new byte[128];

	private int length;

	private boolean truncated;

	/** Whether {@link #run()} reads from now on: the poller no longer does. */
	private boolean blocking;

	StderrTail(StderrLog.Channel log, InputStream stderr, int capacity) {
		this.stderr = stderr;
		this.log = log;
		this.capacity = capacity;
		this.tail = new ArrayDeque<>(Math.min(capacity, 64));
	}

	/**
	 * Read what stderr holds now, without blocking.
	 * @param buffer where to read
	 * @return the bytes read, 0 when there were none, -1 when the poller is done with
	 * this stream
	 */
	int poll(byte[] buffer) {
		synchronized (this.readLock) {
			if (this.blocking) {
				return -1;
			}
			try {
				int available = this.stderr.available();
				if (available <= 0) {
					return 0;
				}
				// No more than is there: the read returns at once
				int read = this.stderr.read(buffer, 0, Math.min(available, buffer.length));
				// nothing is accepted from a read that found none
				accept(buffer, read);
				return Math.max(read, 0);
			}
			catch (IOException ex) {
				// Closed under us: what is left is for finish()
				return 0;
			}
		}
	}

	/**
	 * Read what stderr holds now, the whole of it, without blocking: once the process has
	 * ended, that is all it wrote, even while a child holds the stream open. Its last
	 * line counts even without a newline.
	 */
	void drain() {
		byte[] buffer = new byte[8192];
		// bounded: a child that floods it does not hold the exit
		for (int i = 0; i < 256 && poll(buffer) > 0; i++) {
			// read on
		}
		synchronized (this.readLock) {
			if (!this.blocking && this.length > 0) {
				add();
			}
		}
	}

	/**
	 * Read the rest of stderr to its end on a task thread: the process has ended, and the
	 * stream ends once no child holds it open.
	 * @param tasks where to read
	 */
	void finish(Executor tasks) {
		try {
			tasks.execute(this);
		}
		catch (RejectedExecutionException ex) {
			run();
		}
	}

	/** Read stderr to its end, blocking: from the start or after the poller. */
	@Override
	public void run() {
		synchronized (this.readLock) {
			if (this.blocking) {
				return;
			}
			this.blocking = true;
		}
		byte[] buffer = new byte[8192];
		try {
			int read;
			while ((read = this.stderr.read(buffer)) != -1) {
				accept(buffer, read);
			}
		}
		catch (IOException ex) {
			// The pipe closed under us: the process is gone
		}
		finally {
			if (this.length > 0) {
				add();
			}
			this.log.close();
			this.done.countDown();
		}
	}

	private void accept(byte[] buffer, int read) {
		for (int i = 0; i < read; i++) {
			byte b = buffer[i];
			if (b == '\n') {
				add();
			}
			else if (this.length < MAX_LINE_LENGTH) {
				if (this.length == this.line.length) {
					this.line = Arrays.copyOf(this.line, Math.min(MAX_LINE_LENGTH, this.length * 2));
				}
				this.line[this.length++] = b;
			}
			else {
				this.truncated = true;
			}
		}
	}

	private void add() {
		int end = this.length;
		if (end > 0 && this.line[end - 1] == '\r') {
			end--;
		}
		String text = new String(this.line, 0, end, StandardCharsets.UTF_8) + (this.truncated ? " [truncated]" : "");
		this.length = 0;
		this.truncated = false;
		this.log.line(text);
		synchronized (this.tail) {
			this.tail.addLast(text);
			if (this.tail.size() > this.capacity) {
				this.tail.removeFirst();
			}
		}
	}

	/**
	 * Return the last lines, sanitized here rather than as they were read, so that a
	 * flood of stderr costs the reader no more than splitting it into lines.
	 * @return the lines, oldest first
	 */
	List<String> lines() {
		List<String> lines;
		synchronized (this.tail) {
			lines = new ArrayList<>(this.tail);
		}
		return SecretSanitizer.lines(lines, this.log.secrets);
	}

}

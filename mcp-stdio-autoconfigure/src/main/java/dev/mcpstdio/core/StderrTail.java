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
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Drains a server's stderr so that it can never block on it, hands each line to the
 * {@link StderrLog} (logged under {@code dev.mcpstdio.server.<name>}, rate-limited) and
 * keeps the last lines for error messages and the endpoint. What leaves this class is
 * sanitized: {@link #lines()} and the log mask what looks like a secret. The lines are
 * sanitized on their way out rather than as they are read, so that a flood of stderr
 * costs the reader no more than splitting it into lines.
 *
 * @author mcp-stdio authors
 */
final class StderrTail implements Runnable {

	/** A longer stderr line is cut: stderr is for humans, not for data. */
	static final int MAX_LINE_LENGTH = 8 * 1024;

	private final InputStream stderr;

	private final StderrLog.Channel log;

	private final int capacity;

	private final ArrayDeque<String> tail;

	private final CountDownLatch done = new CountDownLatch(1);

	StderrTail(StderrLog.Channel log, InputStream stderr, int capacity) {
		this.stderr = stderr;
		this.log = log;
		this.capacity = capacity;
		this.tail = new ArrayDeque<>(Math.min(capacity, 64));
	}

	@Override
	public void run() {
		byte[] buffer = new byte[8192];
		byte[] line = new byte[MAX_LINE_LENGTH];
		int length = 0;
		boolean truncated = false;
		try {
			int read;
			while ((read = this.stderr.read(buffer)) != -1) {
				for (int i = 0; i < read; i++) {
					byte b = buffer[i];
					if (b == '\n') {
						add(line, length, truncated);
						length = 0;
						truncated = false;
					}
					else if (length < line.length) {
						line[length++] = b;
					}
					else {
						truncated = true;
					}
				}
			}
		}
		catch (IOException ex) {
			// The pipe closed under us: the process is gone
		}
		finally {
			if (length > 0) {
				add(line, length, truncated);
			}
			this.log.close();
			this.done.countDown();
		}
	}

	private void add(byte[] bytes, int length, boolean truncated) {
		if (length > 0 && bytes[length - 1] == '\r') {
			length--;
		}
		String text = new String(bytes, 0, length, StandardCharsets.UTF_8) + (truncated ? " [truncated]" : "");
		this.log.line(text);
		if (this.capacity == 0) {
			return;
		}
		synchronized (this.tail) {
			if (this.tail.size() == this.capacity) {
				this.tail.removeFirst();
			}
			this.tail.addLast(text);
		}
	}

	/**
	 * Wait, bounded, until stderr reached its end: a child may hold it open.
	 * @param millis the longest wait
	 * @return whether stderr reached its end
	 */
	boolean awaitEnd(long millis) {
		try {
			return this.done.await(millis, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/**
	 * Return the last lines, sanitized.
	 * @return the lines, oldest first
	 */
	List<String> lines() {
		List<String> lines;
		synchronized (this.tail) {
			lines = new ArrayList<>(this.tail);
		}
		return SecretSanitizer.lines(lines);
	}

}

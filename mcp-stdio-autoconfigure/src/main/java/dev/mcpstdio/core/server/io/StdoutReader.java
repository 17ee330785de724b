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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.core.secrets.SecretValues;
import dev.mcpstdio.core.support.Waits;
import org.jspecify.annotations.Nullable;

/**
 * Splits a server's stdout into newline-delimited JSON-RPC messages of bounded size.
 *
 * @author mcp-stdio authors
 */
final class StdoutReader implements Runnable {

	/** How long a read that has not returned is taken for an empty pipe without /proc. */
	static final long QUIET_MILLIS = 20;

	private final InputStream stdout;

	private final int maxMessageSize;

	private final String serverName;

	private final NonJsonLog nonJson;

	private final LineSink sink;

	private final CountDownLatch done = new CountDownLatch(1);

	/** The first size of the line buffer, and its size again after a huge message. */
	private static final int LINE_SIZE = 1024;

	/** The read buffer while messages are small: what an idle server holds. */
	private static final int SMALL_READ = 4 * 1024;

	/** The read buffer while a large message streams in: one pipe's worth a read. */
	private static final int LARGE_READ = 64 * 1024;

	private byte[] line = new byte[LINE_SIZE];

	private int length;

	private boolean discarding;

	/** Whether the reading thread is in a read of the pipe (and not handling a line). */
	private volatile boolean inRead;

	/** How many reads returned: a read that returned is one that found something. */
	private volatile long reads;

	/**
	 * Where the kernel tells the reading thread's state
	 * ({@code /proc/self/task/<tid>/stat}), or {@code null} where it cannot be read.
	 */
	private volatile @Nullable Path threadStat;

	/**
	 * Create a reader of one server's stdout.
	 * @param serverName the server's name, for messages
	 * @param maxMessageSize the longest line taken, in bytes
	 * @param secrets the server's secrets, kept out of what is logged
	 * @param stdout the stream
	 * @param sink where the lines go
	 */
	StdoutReader(String serverName, int maxMessageSize, SecretValues secrets, InputStream stdout, LineSink sink) {
		this.stdout = stdout;
		this.maxMessageSize = maxMessageSize;
		this.serverName = serverName;
		this.nonJson = new NonJsonLog(serverName, secrets);
		this.sink = sink;
	}

	@Override
	public void run() {
		this.threadStat = threadStat();
		IOException failure = null;
		try {
			// Small while messages are small, so that an idle server costs little; a read
			// that fills it means a large message, read a pipe's worth at a time
			byte[] buffer = new byte[SMALL_READ];
			int read;
			while ((read = readSome(buffer)) != -1) {
				int start = 0;
				for (int i = 0; i < read; i++) {
					if (buffer[i] == '\n') {
						append(buffer, start, i - start);
						endOfLine();
						start = i + 1;
					}
				}
				append(buffer, start, read - start);
				if (read == buffer.length && buffer.length < LARGE_READ) {
					buffer = new byte[LARGE_READ];
				}
				else if (read < SMALL_READ && buffer.length > SMALL_READ && this.length == 0) {
					buffer = new byte[SMALL_READ];
				}
			}
			if (this.length > 0 && !this.discarding) {
				endOfLine();
			}
		}
		catch (IOException ex) {
			failure = ex;
		}
		finally {
			this.done.countDown();
			this.sink.ended(failure);
		}
	}

	private int readSome(byte[] buffer) throws IOException {
		this.inRead = true;
		try {
			return this.stdout.read(buffer);
		}
		finally {
			this.inRead = false;
			this.reads++;
		}
	}

	private static @Nullable Path threadStat() {
		try {
			// "<pid>/task/<tid>": this thread as the kernel knows it
			Path self = Files.readSymbolicLink(Path.of("/proc/thread-self"));
			Path stat = Path.of("/proc").resolve(self).resolve("stat");
			return Files.isReadable(stat) ? stat : null;
		}
		catch (IOException | RuntimeException ex) {
			return null;
		}
	}

	private void append(byte[] buffer, int offset, int count) {
		if (count == 0 || this.discarding) {
			return;
		}
		if (this.length + count > this.maxMessageSize) {
			this.discarding = true;
			this.length = 0;
			this.line = new byte[LINE_SIZE];
			this.sink.failed("it sent a message longer than max-message-size (" + this.maxMessageSize
					+ " bytes); raise mcp.stdio.servers." + this.serverName + ".max-message-size if that is expected");
			return;
		}
		if (this.length + count > this.line.length) {
			int size = this.line.length;
			while (size < this.length + count) {
				size = (int) Math.min((long) size * 2, this.maxMessageSize);
			}
			this.line = Arrays.copyOf(this.line, size);
		}
		System.arraycopy(buffer, offset, this.line, this.length, count);
		this.length += count;
	}

	private void endOfLine() {
		int end = this.length;
		this.length = 0;
		if (this.discarding) {
			this.discarding = false;
			return;
		}
		if (end > 0 && this.line[end - 1] == '\r') {
			end--;
		}
		if (isBlank(this.line, end)) {
			return;
		}
		// Invalid UTF-8 is no reason to drop a line: decoding replaces it, and a response
		// with a bad byte still reaches its caller
		String text = new String(this.line, 0, end, StandardCharsets.UTF_8);
		JsonRpcLine message = JsonRpcLine.scan(text);
		if (this.line.length > SMALL_READ * 16 && end < SMALL_READ) {
			// Do not keep a huge buffer for the server's lifetime after huge messages,
			// but keep it while they follow one another
			this.line = new byte[LINE_SIZE];
		}
		if (message == null) {
			this.nonJson.skipped(text);
			return;
		}
		this.sink.line(message);
	}

	private static boolean isBlank(byte[] bytes, int length) {
		for (int i = 0; i < length; i++) {
			byte b = bytes[i];
			if (b != ' ' && b != '\t' && b != '\r') {
				return false;
			}
		}
		return true;
	}

	long nonJsonLines() {
		return this.nonJson.lines();
	}

	/**
	 * Wait, bounded, until every line was delivered.
	 * @param millis the longest wait
	 * @return whether stdout reached its end
	 */
	boolean awaitEnd(long millis) {
		return Waits.await(this.done, millis);
	}

	/**
	 * Wait, bounded, until every line written so far was delivered, while another process
	 * holds stdout open: the reading thread is back in its read and asleep there, so the
	 * pipe is empty. Where the kernel does not tell the thread's state, a read that has
	 * not returned for {@value #QUIET_MILLIS} ms is taken for one that sleeps.
	 * @param millis the longest wait
	 * @return whether stdout ended or was drained
	 */
	boolean awaitDrained(long millis) {
		long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
		long seen = -1;
		long quietSince = System.nanoTime();
		while (true) {
			if (this.done.getCount() == 0) {
				return true;
			}
			long reads = this.reads;
			if (reads != seen) {
				seen = reads;
				quietSince = System.nanoTime();
			}
			else if (this.inRead && asleep(quietSince)) {
				return true;
			}
			if (System.nanoTime() - deadline >= 0) {
				return false;
			}
			Waits.sleepNanos(1_000_000L);
		}
	}

	/**
	 * Whether the reading thread, in its read since before {@code since}, sleeps there.
	 */
	private boolean asleep(long since) {
		Path stat = this.threadStat;
		if (stat == null) {
			return System.nanoTime() - since >= TimeUnit.MILLISECONDS.toNanos(QUIET_MILLIS);
		}
		try {
			// one look is not enough: a thread that just entered the read shows the state
			// it had before
			String line = Files.readString(stat, StandardCharsets.US_ASCII);
			int close = line.lastIndexOf(')');
			return close > 0 && close + 2 < line.length() && line.charAt(close + 2) == 'S'
					&& System.nanoTime() - since >= 1_000_000L;
		}
		catch (IOException | RuntimeException ex) {
			this.threadStat = null;
			return false;
		}
	}

}

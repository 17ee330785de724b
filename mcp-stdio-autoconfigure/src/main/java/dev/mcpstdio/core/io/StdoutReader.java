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

package dev.mcpstdio.core.io;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;

import dev.mcpstdio.core.support.Waits;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Splits a server's stdout into newline-delimited JSON-RPC messages, at most
 * {@code max-message-size} bytes each. A line that is not JSON is logged (a few, then
 * rarely) and skipped; a line that is too long is a protocol error.
 *
 * @author mcp-stdio authors
 */
public final class StdoutReader implements Runnable {

	private static final Log logger = LogFactory.getLog(StdoutReader.class);

	private static final int FREE_NON_JSON_LOGS = 10;

	private static final long NON_JSON_LOG_INTERVAL_NANOS = 10_000_000_000L;

	private static final int QUOTE_LENGTH = 200;

	private final String serverName;

	private final InputStream stdout;

	private final int maxMessageSize;

	private final Sink sink;

	private final SecretValues secrets;

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

	/** Written by the reading thread only; read by tests that check no line was cut. */
	private volatile long nonJsonLines;

	private long nonJsonSuppressed;

	private long lastNonJsonLog;

	public StdoutReader(String serverName, InputStream stdout, int maxMessageSize, Sink sink, SecretValues secrets) {
		this.serverName = serverName;
		this.stdout = stdout;
		this.maxMessageSize = maxMessageSize;
		this.sink = sink;
		this.secrets = secrets;
	}

	@Override
	public void run() {
		IOException failure = null;
		try {
			// Small while messages are small, so that an idle server costs little; a read
			// that fills it means a large message, read a pipe's worth at a time
			byte[] buffer = new byte[SMALL_READ];
			int read;
			while ((read = this.stdout.read(buffer)) != -1) {
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
			this.sink.end(failure);
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
			this.sink.protocolError("it sent a message longer than max-message-size (" + this.maxMessageSize
					+ " bytes); raise mcp.stdio.servers." + this.serverName + ".max-message-size if that is expected");
			return;
		}
		if (this.length + count > this.line.length) {
			int size = this.line.length;
			while (size < this.length + count) {
				size = (int) Math.min((long) size * 2, this.maxMessageSize);
			}
			byte[] bigger = new byte[size];
			System.arraycopy(this.line, 0, bigger, 0, this.length);
			this.line = bigger;
		}
		System.arraycopy(buffer, offset, this.line, this.length, count);
		this.length += count;
	}

	private void endOfLine() {
		int end = this.length;
		boolean wasDiscarding = this.discarding;
		this.length = 0;
		this.discarding = false;
		if (wasDiscarding) {
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
		JsonRpcPeek.Peeked peeked = JsonRpcPeek.peek(this.line, end);
		String text = new String(this.line, 0, end, StandardCharsets.UTF_8);
		if (this.line.length > SMALL_READ * 16 && end < SMALL_READ) {
			// Do not keep a huge buffer for the server's lifetime after huge messages,
			// but
			// keep it while they follow one another
			this.line = new byte[LINE_SIZE];
		}
		if (peeked == null) {
			nonJson(text);
			return;
		}
		this.sink.message(text, peeked);
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

	private void nonJson(String text) {
		this.nonJsonLines++;
		long now = System.nanoTime();
		if (this.nonJsonLines > FREE_NON_JSON_LOGS && now - this.lastNonJsonLog < NON_JSON_LOG_INTERVAL_NANOS) {
			this.nonJsonSuppressed++;
			return;
		}
		this.lastNonJsonLog = now;
		String quote = SecretSanitizer.quote(text, QUOTE_LENGTH, this.secrets);
		String suppressed = (this.nonJsonSuppressed > 0)
				? " (" + this.nonJsonSuppressed + " more such lines were not logged)" : "";
		this.nonJsonSuppressed = 0;
		logger.warn("MCP server '" + this.serverName + "' wrote a line to stdout that is not JSON-RPC; skipped it: "
				+ quote + suppressed);
	}

	public long nonJsonLines() {
		return this.nonJsonLines;
	}

	/**
	 * Wait, bounded, until every line was delivered.
	 * @param millis the longest wait
	 * @return whether stdout reached its end
	 */
	public boolean awaitEnd(long millis) {
		return Waits.await(this.done, millis);
	}

	/** Where the reader delivers what it reads. */
	public interface Sink {

		void message(String message, JsonRpcPeek.Peeked peeked);

		void protocolError(String description);

		void end(@Nullable IOException failure);

	}

}

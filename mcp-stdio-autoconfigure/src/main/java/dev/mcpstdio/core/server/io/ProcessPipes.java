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
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import dev.mcpstdio.core.support.Threads;

/**
 * The pipes of one server process, as the process uses them: lines written to its stdin
 * within the send timeout, its stdout read into a {@link LineSink}, its stderr's last
 * lines.
 *
 * @author mcp-stdio authors
 */
public final class ProcessPipes {

	private final String name;

	private final StdinWriter stdin;

	private final StdoutReader stdout;

	private final StderrTail stderr;

	private final ServerPipes host;

	ProcessPipes(String name, StdinWriter stdin, StdoutReader stdout, StderrTail stderr, ServerPipes host) {
		this.name = name;
		this.stdin = stdin;
		this.stdout = stdout;
		this.stderr = stderr;
		this.host = host;
	}

	/** Start reading stdout, on a thread of its own. */
	public void startReading() {
		Threads.daemon(this.stdout, "mcp-stdio-" + this.name + "-stdout").start();
	}

	/**
	 * Write a message to stdin: on the caller's thread when nothing is queued or being
	 * written, else through a bounded queue, waiting at most the send timeout for it.
	 * @param message one line, without its newline
	 * @throws WriteTimeoutException if it was not written in time; its message says
	 * whether it will still arrive
	 * @throws IOException if the write failed
	 * @throws InterruptedException if interrupted; a queued line is taken back if it can
	 * be
	 */
	public void write(String message) throws IOException, InterruptedException {
		this.stdin.write(StdinWriter.line(message));
	}

	/**
	 * Close stdin once the write under way, if any, is done; queued writes fail.
	 * @param error makes the error of each queued write
	 */
	public void closeStdin(Supplier<? extends Exception> error) {
		this.stdin.close(error);
	}

	/**
	 * Return the future completed once stdin is closed.
	 * @return the future
	 */
	public CompletableFuture<Void> stdinClosed() {
		return this.stdin.closed;
	}

	/**
	 * Return whether stdin is closed or being closed.
	 * @return whether the server has been or is being sent EOF
	 */
	public boolean isStdinClosing() {
		return this.stdin.isClosing();
	}

	/**
	 * Return whether a line is being written to stdin now.
	 * @return whether a write is under way
	 */
	public boolean isWriting() {
		return this.stdin.isWriting();
	}

	/**
	 * Wait until nothing is queued for or being written to stdin.
	 * @param deadlineNanos the {@link System#nanoTime()} to give up at
	 */
	public void awaitWritten(long deadlineNanos) {
		this.stdin.awaitIdle(deadlineNanos);
	}

	/**
	 * Read what the ended process left in stderr now; the rest, a child's, is read to its
	 * end on a task thread, since the child may hold it open.
	 */
	public void finishStderr() {
		this.host.finish(this.stderr);
	}

	/**
	 * Return the last lines the server wrote to stderr, sanitized.
	 * @return the stderr tail, oldest first
	 */
	public List<String> stderrLines() {
		return this.stderr.lines();
	}

	/**
	 * Wait, bounded, until every line written to stdout so far was delivered, while
	 * another process may hold it open.
	 * @param millis the longest wait
	 * @return whether stdout ended or was drained
	 */
	public boolean awaitStdoutDrained(long millis) {
		return this.stdout.awaitDrained(millis);
	}

	/**
	 * Wait, bounded, until stdout reached its end and every line was delivered.
	 * @param millis the longest wait
	 * @return whether stdout reached its end
	 */
	public boolean awaitStdoutEnd(long millis) {
		return this.stdout.awaitEnd(millis);
	}

	/**
	 * Return how many lines of stdout were skipped as not JSON-RPC.
	 * @return the count so far
	 */
	public long nonJsonLines() {
		return this.stdout.nonJsonLines();
	}

	/** A write that could not be made within the send timeout. */
	public static final class WriteTimeoutException extends IOException {

		WriteTimeoutException(String message) {
			super(message);
		}

	}

}

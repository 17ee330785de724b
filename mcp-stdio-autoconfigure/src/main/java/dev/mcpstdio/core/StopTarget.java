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

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.ObjLongConsumer;

import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.core.io.StdinWriter;

/**
 * What the stop sequence does to one server process: drain its sends and requests, close
 * its stdin, end its tree, and wait for its exit.
 *
 * @author mcp-stdio authors
 */
final class StopTarget implements StopSequence.Target {

	private final String name;

	private final Process process;

	private final ShutdownTimeouts timeouts;

	private final PendingRequests pending;

	private final StdinWriter writer;

	private final ExitClassifier classifier;

	private final ExitWatcher exits;

	private final ExitHandler exit;

	/**
	 * Ends the process tree, for the reason given, from a snapshot begun after the time
	 * given.
	 */
	private final ObjLongConsumer<String> terminateTree;

	/** How long the client waits for a response: the drain does not wait longer. */
	private volatile long clientTimeoutNanos = Long.MAX_VALUE;

	StopTarget(String name, Process process, ShutdownTimeouts timeouts, PendingRequests pending, StdinWriter writer,
			ExitClassifier classifier, ExitWatcher exits, ExitHandler exit, ObjLongConsumer<String> terminateTree) {
		this.name = name;
		this.process = process;
		this.timeouts = timeouts;
		this.pending = pending;
		this.writer = writer;
		this.classifier = classifier;
		this.exits = exits;
		this.exit = exit;
		this.terminateTree = terminateTree;
	}

	/**
	 * Tell how long the client waits for a response: a request older than that does not
	 * hold the drain.
	 * @param timeout the client's request timeout
	 */
	void setClientRequestTimeout(Duration timeout) {
		this.clientTimeoutNanos = timeout.toNanos();
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public long pid() {
		return this.process.pid();
	}

	@Override
	public Process process() {
		return this.process;
	}

	@Override
	public ShutdownTimeouts timeouts() {
		return this.timeouts;
	}

	@Override
	public void drain(long deadlineNanos) {
		this.pending.signal();
		this.writer.awaitIdle(deadlineNanos);
		this.pending.awaitEmpty(deadlineNanos, this.clientTimeoutNanos);
	}

	@Override
	public void closeStdin(Duration bound) throws InterruptedException, ExecutionException, TimeoutException {
		this.writer.close((write) -> new McpServerNotRunningException(this.name,
				"MCP server '" + this.name + "' was stopped before the message was sent"));
		if (!this.writer.isWriting()) {
			this.writer.closed().get(bound.toNanos(), TimeUnit.NANOSECONDS);
			this.classifier.stdinClosedByStop();
		}
	}

	@Override
	public void terminateTree(String why, long freshSince) {
		this.terminateTree.accept(why, freshSince);
	}

	@Override
	public void exited() {
		this.exits.check(this.process);
	}

	@Override
	public ExitInfo awaitExit() {
		return this.exit.awaitAfterStop();
	}

}

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

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

import dev.mcpstdio.core.secrets.SecretValues;

/**
 * The pipes of a host's server processes: it opens each process's pipes and runs what
 * they share (the threads that write queued lines, the timer of blocked writes, the pump
 * of every stderr).
 *
 * @author mcp-stdio authors
 */
public final class ServerPipes implements AutoCloseable {

	private final Executor tasks;

	private final ScheduledExecutorService timer;

	private final StderrPump stderr = new StderrPump();

	/**
	 * Create the pipes of one host.
	 * @param tasks the threads that write queued lines and read a stderr to its end
	 * @param timer the one thread of timed tasks (a write's timeout)
	 */
	public ServerPipes(Executor tasks, ScheduledExecutorService timer) {
		this.tasks = tasks;
		this.timer = timer;
	}

	/**
	 * Open the pipes of a started process: its stderr is polled from now on, its stdout
	 * is read once {@link ProcessPipes#startReading()} is called.
	 * @param process the process
	 * @param server what the process is: its name, secrets and limits
	 * @param onBlocked called once when a write to its stdin stays blocked longer than
	 * the send timeout
	 * @param sink where the lines of its stdout go
	 * @return its pipes
	 */
	public ProcessPipes open(Process process, Server server, Runnable onBlocked, LineSink sink) {
		StdinWriter stdin = new StdinWriter(process.getOutputStream(), server.sendTimeout(), onBlocked, this.tasks,
				this.timer);
		StderrTail stderr = this.stderr.start(server.name(), server.secrets(), process.getErrorStream(),
				server.stderrTailLines());
		StdoutReader stdout = new StdoutReader(server.name(), server.maxMessageSize(), server.secrets(),
				process.getInputStream(), sink);
		return new ProcessPipes(server.name(), stdin, stdout, stderr, this);
	}

	/**
	 * Stop polling a process's stderr and read the rest to its end on a task thread: its
	 * process has ended.
	 * @param tail its stderr
	 */
	void finish(StderrTail tail) {
		this.stderr.stop(tail);
		tail.drain();
		tail.finish(this.tasks);
	}

	/** Log the stderr lines still queued and end the logging thread, bounded. */
	@Override
	public void close() {
		this.stderr.close();
	}

	/**
	 * What the pipes of one server are opened for.
	 *
	 * @param name the server's name, for messages and threads
	 * @param secrets its secret values, masked in what is logged and kept
	 * @param sendTimeout how long a write to its stdin may take
	 * @param maxMessageSize the longest line of its stdout taken, in bytes
	 * @param stderrTailLines how many of its last stderr lines are kept
	 */
	public record Server(String name, SecretValues secrets, Duration sendTimeout, int maxMessageSize,
			int stderrTailLines) {

	}

}

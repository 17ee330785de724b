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
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.mcpstdio.McpServerExitedException;
import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.containment.Containment;
import dev.mcpstdio.core.io.JsonRpcPeek;
import dev.mcpstdio.core.io.StderrTail;
import dev.mcpstdio.core.io.StdinWriter;
import dev.mcpstdio.core.io.StdoutReader;
import dev.mcpstdio.core.process.ProcessTree;
import dev.mcpstdio.core.process.TreeStats;
import dev.mcpstdio.core.support.Durations;
import dev.mcpstdio.core.support.Futures;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One running stdio MCP server process: newline-delimited JSON-RPC over its stdin and
 * stdout, its stderr drained and kept, its exit observed as it happens, and a stop that
 * drains, closes stdin, waits, then ends its whole process tree, every step bounded.
 * Every method is safe to call from any thread, concurrently with the others.
 *
 * @author mcp-stdio authors
 */
public final class StdioServerProcess {

	private static final Log logger = LogFactory.getLog(StdioServerProcess.class);

	/** How long a send that hit a broken pipe waits for the exit to be observed. */
	private static final long EXIT_OBSERVATION_MILLIS = 2000;

	/** The last wait of a stop, for the exit to be observed once the tree was ended. */

	private final StdioServerSpec spec;

	private final ServerRuntime runtime;

	private final Process process;

	private final ProcessTree tree;

	private final Containment containment;

	private final Instant startedAt = Instant.now();

	private final StdinWriter writer;

	private final StderrTail stderr;

	private final StdoutReader stdout;

	private final PendingRequests pending = new PendingRequests();

	private final CompletableFuture<ExitInfo> exit = new CompletableFuture<>();

	private final ExitHandler processExit;

	private final StopTarget stopTarget;

	private final AtomicBoolean stopStarted = new AtomicBoolean();

	private final CompletableFuture<StopResult> stopped = new CompletableFuture<>();

	private final Object terminationLock = new Object();

	/** The stop, the failure and the signals that decide what a caller is told. */
	private final ExitClassifier classifier;

	/** Learns each step of a stop as it begins; tests make a step fail through it. */
	private volatile StopSequence.StepListener stopSteps = (step) -> {
	};

	private StdioServerProcess(StdioServerSpec spec, MessageListener listener, ProcessLauncher.Launched launched,
			ProcessTree tree, ServerRuntime runtime) {
		this.spec = spec;
		this.runtime = runtime;
		this.process = launched.process();
		this.classifier = new ExitClassifier(launched.withheldVariables(), spec.origin());
		this.tree = tree;
		this.containment = launched.containment();
		this.writer = new StdinWriter(this.process.getOutputStream(), spec.sendTimeout(),
				() -> fail("it did not read its stdin within " + Durations.format(spec.sendTimeout())), runtime.tasks(),
				runtime.scheduler());
		this.stderr = new StderrTail(runtime.stderrLog().open(spec.name(), spec.secrets()),
				this.process.getErrorStream(), spec.stderrTailLines());
		this.stdout = new StdoutReader(
				spec.name(), this.process.getInputStream(), spec.maxMessageSize(), new StdoutSink(spec.name(),
						this.process, this.pending, listener, this.classifier, runtime.exits(), this.exit, this::fail),
				spec.secrets());
		this.processExit = new ExitHandler(spec.name(), this.process, this.tree, runtime, this.stderr, this.stdout,
				this.writer, this.pending, this.classifier, listener, this.exit, this::terminateTree);
		this.stopTarget = new StopTarget(spec.name(), this.process, spec.shutdown(), this.pending, this.writer,
				this.classifier, runtime.exits(), this.processExit, this::terminateTree);
	}

	/**
	 * Run a launched server process: read its output, write its input, watch its exit.
	 * @param spec what was started
	 * @param listener receives its messages and its end
	 * @param launched the started process
	 * @param tree its process tree
	 * @param runtime what it shares with the other servers
	 * @return the running process
	 */
	static StdioServerProcess run(StdioServerSpec spec, MessageListener listener, ProcessLauncher.Launched launched,
			ProcessTree tree, ServerRuntime runtime) {
		StdioServerProcess server = new StdioServerProcess(spec, listener, launched, tree, runtime);
		server.thread(server.stdout, "stdout").start();
		runtime.stderrPoller().add(server.stderr);
		runtime.exits().watch(server.process, server.processExit::handle);
		logger.info("Started MCP server '" + spec.name() + "' (pid " + server.pid() + "): " + spec.commandLine());
		return server;
	}

	private Thread thread(Runnable runnable, String stream) {
		Thread thread = new Thread(runnable, "mcp-stdio-" + this.spec.name() + "-" + stream);
		thread.setDaemon(true);
		return thread;
	}

	public String name() {
		return this.spec.name();
	}

	public StdioServerSpec spec() {
		return this.spec;
	}

	public long pid() {
		return this.process.pid();
	}

	public Instant startedAt() {
		return this.startedAt;
	}

	/**
	 * Return whether the server's root process is alive and no stop has begun.
	 * @return whether messages can be sent
	 */
	public boolean isRunning() {
		return !this.classifier.stopRequested() && !this.exit.isDone() && this.process.isAlive();
	}

	/**
	 * Return the future that completes when the process has ended and its end was
	 * classified.
	 * @return the exit future
	 */
	public CompletableFuture<ExitInfo> exit() {
		return this.exit;
	}

	/**
	 * Return how the process ended, once it has.
	 * @return the exit or {@code null}
	 */
	public @Nullable ExitInfo exitInfo() {
		return this.exit.getNow(null);
	}

	/**
	 * Return the last lines the server wrote to stderr.
	 * @return the stderr tail, oldest first
	 */
	public List<String> stderrTail() {
		return this.stderr.lines();
	}

	/**
	 * Return how many requests were sent and not yet answered.
	 * @return the pending request count
	 */
	public int pendingRequests() {
		return this.pending.size();
	}

	/**
	 * Count the live processes of this start of the server and their memory.
	 * @return the figures
	 */
	public TreeStats treeStats() {
		return this.runtime.census().count(this.spec.name(), List.of(this));
	}

	/**
	 * Tell how long the client waits for a response: a request older than that is given
	 * up on and does not hold the drain step of a stop.
	 * @param timeout the client's request timeout
	 */
	public void setClientRequestTimeout(Duration timeout) {
		this.stopTarget.setClientRequestTimeout(timeout);
	}

	ProcessTree tree() {
		return this.tree;
	}

	Containment containment() {
		return this.containment;
	}

	boolean isWriting() {
		return this.writer.isWriting();
	}

	StdoutReader stdoutReader() {
		return this.stdout;
	}

	/**
	 * Send a notification or a response, or a request whose response the listener gets.
	 * @param message one JSON-RPC message, without newlines
	 * @param requestId the id when the message is a request, so that it is tracked until
	 * its response arrives, or {@code null}
	 * @throws McpServerExitedException if the process has ended or ends during the send
	 * @throws McpServerNotRunningException if the server is stopping or stopped
	 * @throws McpStdioException if the message cannot be written within the send timeout
	 */
	public void send(String message, @Nullable Object requestId) {
		checkSendable();
		if (requestId == null) {
			String cancelled = JsonRpcPeek.cancelledRequestId(message);
			if (cancelled != null) {
				// The client gave up on it: it must not hold a stop's drain
				this.pending.remove(cancelled);
			}
		}
		if (requestId != null && !this.pending.add(requestId, null)) {
			throw new IllegalArgumentException("A request with id " + requestId + " is already pending");
		}
		try {
			write(message);
		}
		catch (RuntimeException ex) {
			if (requestId != null) {
				this.pending.remove(requestId);
			}
			throw ex;
		}
	}

	/**
	 * Send a message that is not a request.
	 * @param message one JSON-RPC message, without newlines
	 */
	public void send(String message) {
		send(message, null);
	}

	/**
	 * Send a request and get its response instead of passing it to the listener.
	 * @param id the request's id
	 * @param message the request, without newlines
	 * @return a future completed with the response line, or exceptionally with
	 * {@link McpServerExitedException} when the process has ended or ends first, and with
	 * the other errors of {@link #send(String, Object)}
	 */
	public CompletableFuture<String> request(Object id, String message) {
		CompletableFuture<String> response = new CompletableFuture<>();
		try {
			checkSendable();
		}
		catch (McpStdioException ex) {
			response.completeExceptionally(ex);
			return response;
		}
		if (!this.pending.add(id, response)) {
			throw new IllegalArgumentException("A request with id " + id + " is already pending");
		}
		try {
			write(message);
		}
		catch (RuntimeException ex) {
			this.pending.remove(id);
			response.completeExceptionally(ex);
		}
		return response;
	}

	private void checkSendable() {
		if (this.classifier.stopRequested()) {
			throw notRunning("is stopping or stopped");
		}
		ExitInfo exitInfo = this.exit.getNow(null);
		if (exitInfo != null) {
			throw exitInfo.toException();
		}
		if (this.classifier.failure() != null) {
			throw awaitExitException(null);
		}
	}

	private void write(String message) {
		if (message.indexOf('\n') >= 0 || message.indexOf('\r') >= 0) {
			throw new IllegalArgumentException("A JSON-RPC message sent over stdio must be one line");
		}
		try {
			this.writer.write(StdinWriter.line(message));
		}
		catch (StdinWriter.WriteTimeoutException ex) {
			throw sendTimeout(ex.getMessage());
		}
		catch (IOException ex) {
			throw awaitExitException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new McpStdioException(name(), "Interrupted while sending to MCP server '" + name() + "'", ex);
		}
	}

	/**
	 * A write failed or the server is failing: wait, bounded, for the exit to be
	 * observed, so that the caller learns why instead of seeing a bare I/O error.
	 */
	private RuntimeException awaitExitException(@Nullable Throwable cause) {
		ExitInfo exitInfo = this.processExit
			.await(EXIT_OBSERVATION_MILLIS + this.spec.shutdown().terminate().toMillis());
		if (exitInfo == null && !this.process.isAlive()) {
			// It has ended: its exit is told once its last output was read, which a busy
			// machine may take longer for
			exitInfo = this.processExit.await(ShutdownTimeouts.FINAL_EXIT_WAIT.toMillis());
		}
		if (this.classifier.stopRequested() && (exitInfo == null || !exitInfo.cause().isFailure())) {
			return notRunning("was stopped while the message was being written");
		}
		if (exitInfo != null) {
			return exitInfo.toException();
		}
		String reason = (cause != null) ? cause.getMessage() : this.classifier.failure();
		fail("its stdin broke (" + reason + ") while the process kept running");
		return new McpStdioException(name(), "Could not write to MCP server '" + name() + "': " + reason
				+ "; the process is still running and is being terminated", cause);
	}

	private McpStdioException sendTimeout(String what) {
		return new McpStdioException(name(),
				"MCP server '" + name() + "' did not read its stdin within " + Durations.format(this.spec.sendTimeout())
						+ "; " + what + ". Raise mcp.stdio.servers." + name()
						+ ".send-timeout if the server is just slow");
	}

	private McpServerNotRunningException notRunning(String what) {
		return new McpServerNotRunningException(name(), "MCP server '" + name() + "' " + what);
	}

	/**
	 * Tell the process why the stop about to begin is made, so that its exit is
	 * classified with that cause whoever runs the stop. Does nothing once a stop has
	 * begun.
	 * @param cause the cause its exit gets, such as {@link ExitCause#IDLE}
	 * @param reason what made mcp-stdio stop it, for the exit's message, or {@code null}
	 * @return whether the cause was taken
	 */
	public boolean prepareStop(ExitCause cause, @Nullable String reason) {
		if (this.stopStarted.get()) {
			return false;
		}
		this.classifier.prepareStop(cause, reason);
		return true;
	}

	/**
	 * Stop the server: the contract's four steps, each bounded. Idempotent: every caller
	 * gets the result of the one stop.
	 * @return how it went
	 */
	public StopResult stop() {
		return stop(this.runtime.shutdownCohort());
	}

	/**
	 * Stop the server as one of the servers that the application's shutdown stops
	 * together: once its root process has exited, its tree is looked at together with
	 * theirs, within the bound of its own step 3. Otherwise as {@link #stop()}.
	 * @return how it went
	 */
	public StopResult stopWithOthers() {
		return stop(this.runtime.shutdownCohort());
	}

	private StopResult stop(StopCohort cohort) {
		if (this.stopStarted.compareAndSet(false, true)) {
			try {
				boolean wasRunning = !this.exit.isDone() && this.process.isAlive();
				this.classifier.requestStop();
				this.stopped.complete(new StopSequence(this.stopTarget, this.stopSteps, cohort).run(wasRunning));
			}
			catch (RuntimeException | Error ex) {
				this.stopped.completeExceptionally(ex);
				throw ex;
			}
		}
		return Futures.await(this.stopped, this.spec.shutdown().worstCase().plusSeconds(5), name(), "finish stopping");
	}

	/**
	 * Set a listener of the stop's steps, for tests that make a step fail.
	 * @param listener the listener
	 */
	void onStopStep(StopSequence.StepListener listener) {
		this.stopSteps = listener;
	}

	private void terminateTree(String why) {
		terminateTree(why, System.nanoTime());
	}

	private void terminateTree(String why, long freshSince) {
		synchronized (this.terminationLock) {
			// the container (through its engine) ends alongside the tree, then the cgroup
			this.containment.terminate(this.spec.shutdown().terminate(),
					() -> this.runtime.terminator()
						.terminate(name(), this.tree, this.spec.shutdown().terminate(), why, freshSince,
								this.classifier::signalled));
			this.runtime.scanner().invalidate();
			this.containment.release();
		}
	}

	/**
	 * Treat the server as failed: its process tree is ended whatever else happens.
	 * @param reason what went wrong
	 */
	private void fail(String reason) {
		if (this.classifier.stopRequested() || this.exit.isDone() || this.classifier.failure() != null) {
			return;
		}
		this.classifier.failed(reason);
		logger.warn(
				"MCP server '" + name() + "' (pid " + pid() + ") failed: " + reason + "; terminating its process tree");
		this.runtime.tasks().execute(() -> terminateTree("failed: " + reason));
	}

	@Override
	public String toString() {
		return "StdioServerProcess[" + name() + ", pid " + pid() + "]";
	}

}

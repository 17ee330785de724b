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
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.mcpstdio.McpServerExitedException;
import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.PendingRequests.Pending;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One running stdio MCP server process: newline-delimited JSON-RPC over its stdin and
 * stdout, its stderr drained and kept, its exit observed as it happens, and a stop that
 * drains, closes stdin, waits, then ends its whole process tree, every step bounded.
 * <p>
 * Every method is safe to call from any thread, concurrently with the others.
 * <p>
 * Why this class is longer than the others: the send path, the observation of the exit
 * and the start of a stop share the state that decides what a caller is told (stop
 * requested, failure seen, signal sent to the root), and their races are easiest to read
 * in one place. Everything else is elsewhere: launching ({@link ProcessLauncher}), the
 * stop's steps ({@code StopSequence}), reading ({@code StdoutReader},
 * {@code StderrTail}), writing ({@code StdinWriter}) and the tree ({@code ProcessTree},
 * {@code TreeTerminator}).
 *
 * @author mcp-stdio authors
 */
public final class StdioServerProcess {

	private static final Log logger = LogFactory.getLog(StdioServerProcess.class);

	/** How long an exit waits for stdout and stderr to deliver what the process wrote. */
	private static final long STREAM_GRACE_MILLIS = 300;

	/** How much longer a pipe that no live process holds may take to reach its end. */
	private static final long LATE_STREAM_MILLIS = 2000;

	/** How long a stdout that ended may wait for the process to follow. */
	private static final long EOF_GRACE_MILLIS = 500;

	/** How long a send that hit a broken pipe waits for the exit to be observed. */
	private static final long EXIT_OBSERVATION_MILLIS = 2000;

	/**
	 * The last wait of a stop, for the exit to be observed once the tree was ended: the
	 * exit of a SIGKILLed root, then its output read ({@link #awaitStreams()}).
	 */
	static final Duration FINAL_EXIT_WAIT = TreeTerminator.KILL_WAIT
		.plusMillis(2 * (STREAM_GRACE_MILLIS + LATE_STREAM_MILLIS) + 1000);

	private final StdioServerSpec spec;

	private final MessageListener listener;

	private final ServerHost host;

	private final Process process;

	private final ProcessTree tree;

	private final Containment containment;

	private final Instant startedAt = Instant.now();

	private final long startNanos = System.nanoTime();

	private final StdinWriter writer;

	private final StderrTail stderr;

	private final StdoutReader stdout;

	private final PendingRequests pending = new PendingRequests();

	private final CompletableFuture<ExitInfo> exit = new CompletableFuture<>();

	private final AtomicBoolean stopStarted = new AtomicBoolean();

	private final CompletableFuture<StopResult> stopped = new CompletableFuture<>();

	private final Object terminationLock = new Object();

	/** The application's variables the process did not get, for the exit's hint. */
	private final Set<String> withheldVariables;

	private volatile boolean stopRequested;

	private volatile boolean stdinClosedByStop;

	private volatile @Nullable String failure;

	/** Why mcp-stdio stops the process, when it is for a reason of its own. */
	private volatile @Nullable ExitCause stopCause;

	/** What made mcp-stdio stop it, for the exit's message. */
	private volatile @Nullable String stopReason;

	/**
	 * Whether the process has written a message to stdout: it has started talking MCP.
	 */
	private volatile boolean spoke;

	/** How long the client waits for a response: the drain does not wait longer. */
	private volatile long clientTimeoutNanos = Long.MAX_VALUE;

	/** The signal mcp-stdio sent to the root: 0, 15 or 9. */
	private volatile int rootSignal;

	/** Learns each step of a stop as it begins; tests make a step fail through it. */
	private volatile StopSequence.StepListener stopSteps = (step) -> {
	};

	private StdioServerProcess(StdioServerSpec spec, MessageListener listener, ProcessLauncher.Launched launched,
			ServerHost host) {
		this.spec = spec;
		this.listener = listener;
		this.host = host;
		this.process = launched.process();
		this.withheldVariables = launched.withheldVariables();
		this.tree = new ProcessTree(this.process.pid(), launched.startTime(), launched.instance(),
				host.platform().ownSessions(), this.process::isAlive, host.scanner()::now);
		this.containment = launched.containment();
		this.writer = new StdinWriter(this.process.getOutputStream(), spec.sendTimeout(),
				() -> fail("it did not read its stdin within " + Durations.format(spec.sendTimeout())), host.tasks(),
				host.scheduler());
		this.stderr = new StderrTail(host.stderrLog().open(spec.name()), this.process.getErrorStream(),
				spec.stderrTailLines());
		this.stdout = new StdoutReader(spec.name(), this.process.getInputStream(), spec.maxMessageSize(), new Sink());
	}

	/**
	 * Run a launched server process: read its output, write its input, watch its exit.
	 * @param spec what was started
	 * @param listener receives its messages and its end
	 * @param launched the started process
	 * @param host what it shares with the other servers
	 * @return the running process
	 */
	static StdioServerProcess run(StdioServerSpec spec, MessageListener listener, ProcessLauncher.Launched launched,
			ServerHost host) {
		StdioServerProcess server = new StdioServerProcess(spec, listener, launched, host);
		server.thread(server.stdout, "stdout").start();
		host.stderrPoller().add(server.stderr);
		host.exits().watch(server.process, server::handleExit);
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
		return !this.stopRequested && !this.exit.isDone() && this.process.isAlive();
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
	public ProcessCensus.TreeStats treeStats() {
		return this.host.census().count(this.spec.name(), List.of(this));
	}

	/**
	 * Tell how long the client waits for a response: a request older than that is given
	 * up on and does not hold the drain step of a stop.
	 * @param timeout the client's request timeout
	 */
	public void setClientRequestTimeout(Duration timeout) {
		this.clientTimeoutNanos = timeout.toNanos();
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
		if (this.stopRequested) {
			throw notRunning("is stopping or stopped");
		}
		ExitInfo exitInfo = this.exit.getNow(null);
		if (exitInfo != null) {
			throw exitInfo.toException();
		}
		if (this.failure != null) {
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
		ExitInfo exitInfo = awaitExitInfo(EXIT_OBSERVATION_MILLIS + this.spec.shutdown().terminate().toMillis());
		if (exitInfo == null && !this.process.isAlive()) {
			// It has ended: its exit is told once its last output was read, which a busy
			// machine may take longer for
			exitInfo = awaitExitInfo(FINAL_EXIT_WAIT.toMillis());
		}
		if (this.stopRequested && (exitInfo == null || !exitInfo.cause().isFailure())) {
			return notRunning("was stopped while the message was being written");
		}
		if (exitInfo != null) {
			return exitInfo.toException();
		}
		String reason = (cause != null) ? cause.getMessage() : this.failure;
		fail("its stdin broke (" + reason + ") while the process kept running");
		return new McpStdioException(name(), "Could not write to MCP server '" + name() + "': " + reason
				+ "; the process is still running and is being terminated", cause);
	}

	private @Nullable ExitInfo awaitExitInfo(long millis) {
		try {
			return this.exit.get(millis, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
		catch (ExecutionException | TimeoutException ex) {
			return null;
		}
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
		this.stopReason = reason;
		this.stopCause = cause;
		return true;
	}

	/**
	 * Stop the server: the contract's four steps, each bounded. Idempotent: every caller
	 * gets the result of the one stop.
	 * @return how it went
	 */
	public StopResult stop() {
		if (this.stopStarted.compareAndSet(false, true)) {
			try {
				boolean wasRunning = !this.exit.isDone() && this.process.isAlive();
				this.stopRequested = true;
				this.stopped.complete(new StopSequence(new Target(), this.stopSteps).run(wasRunning));
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

	private ExitInfo awaitExit() {
		this.host.exits().check(this.process);
		try {
			return this.exit.get(FINAL_EXIT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (ExecutionException | TimeoutException ex) {
			// fall through: report what we know
		}
		int code = this.process.isAlive() ? -1 : this.process.exitValue();
		return new ExitInfo(name(), pid(), code, classify(code), Instant.now(), uptime(), this.stderr.lines(),
				(code == -1) ? "the process survived SIGKILL" : failure());
	}

	private void terminateTree(String why) {
		synchronized (this.terminationLock) {
			// the container (through its engine) ends alongside the tree, then the cgroup
			this.containment.terminate(this.spec.shutdown().terminate(), () -> this.host.terminator()
				.terminate(name(), this.tree, this.spec.shutdown().terminate(), why, (kill) -> {
					if (this.rootSignal != 9) {
						this.rootSignal = kill ? 9 : 15;
					}
				}));
			this.host.scanner().invalidate();
			this.containment.release();
		}
	}

	/**
	 * Treat the server as failed: its process tree is ended whatever else happens.
	 * @param reason what went wrong
	 */
	private void fail(String reason) {
		if (this.stopRequested || this.exit.isDone() || this.failure != null) {
			return;
		}
		this.failure = reason;
		logger.warn(
				"MCP server '" + name() + "' (pid " + pid() + ") failed: " + reason + "; terminating its process tree");
		this.host.tasks().execute(() -> terminateTree("failed: " + reason));
	}

	private void handleExit() {
		// From now on the root's pid may be reused: remember when it was reaped, and
		// make the guard forget it before anyone learns of the exit
		this.tree.rootReaped();
		this.host.scanner().invalidate();
		this.host.guard().ended(pid());
		int code = this.process.exitValue();
		// The rest of stderr, read to its end on a thread of its own: a child may hold
		// it open
		this.host.stderrPoller().remove(this.stderr);
		this.stderr.finish(this.host.tasks());
		awaitStreams();
		List<String> stderrTail = this.stderr.lines();
		ExitInfo exitInfo = new ExitInfo(name(), pid(), code, classify(code), Instant.now(), uptime(), stderrTail,
				failure(), startupHint(stderrTail));
		boolean expected = this.stopRequested && !exitInfo.cause().isFailure();
		List<Pending> requests = this.pending.drainAll();
		List<Object> unanswered = new ArrayList<>();
		for (Pending request : requests) {
			if (request.future() == null) {
				unanswered.add(request.id());
			}
		}
		if (!this.stopRequested) {
			logger.warn(exitInfo.withoutHint() + " (pid " + pid() + ", after " + uptime().toMillis() + " ms)"
					+ ((exitInfo.hint() != null) ? "\n" + exitInfo.hint() : ""));
		}
		// The listener (the server's state, its counts, the client) learns first, so
		// that whoever sees the exit sees it counted
		try {
			this.listener.onExit(exitInfo, unanswered);
		}
		catch (RuntimeException ex) {
			logger.error("Listener of MCP server '" + name() + "' failed on its exit", ex);
		}
		this.exit.complete(exitInfo);
		this.writer.close(
				(write) -> expected ? notRunning("was stopped before the message was sent") : exitInfo.toException());
		for (Pending request : requests) {
			if (request.future() != null) {
				request.future()
					.completeExceptionally(
							expected ? notRunning("was stopped before it answered request " + request.id())
									: exitInfo.toException());
			}
		}
		if (!this.stopRequested) {
			// The leader is gone; whatever it left behind goes with it
			terminateTree("exited and left processes behind");
		}
	}

	/**
	 * Explain an exit during start-up (before the process wrote a single message) whose
	 * stderr names a variable of the application that the allow-list withheld.
	 */
	private @Nullable String startupHint(List<String> stderrTail) {
		if (this.stopRequested || this.spoke) {
			return null;
		}
		return WithheldVariableHint.hint(this.withheldVariables, Set.of(), stderrTail).orElse(null);
	}

	/**
	 * Wait, bounded, until stdout and stderr delivered what the process wrote, so that
	 * the exit's message carries its last stderr lines. A pipe that a surviving child
	 * holds open is given up on quickly; one that nobody holds is only late because the
	 * machine is busy, and is given longer.
	 */
	private void awaitStreams() {
		boolean ended = this.stderr.awaitEnd(STREAM_GRACE_MILLIS) & this.stdout.awaitEnd(STREAM_GRACE_MILLIS);
		if (!ended && this.tree.members(this.host.scanner().scan()).isEmpty()) {
			this.stderr.awaitEnd(LATE_STREAM_MILLIS);
			this.stdout.awaitEnd(LATE_STREAM_MILLIS);
		}
	}

	private @Nullable String failure() {
		return (this.failure != null || !this.stopRequested) ? this.failure : this.stopReason;
	}

	private ExitCause classify(int code) {
		ExitCause requested = this.stopCause;
		if (this.stopRequested && requested != null) {
			// Whatever signal ended it, it ended because mcp-stdio stopped it for this
			return requested;
		}
		int signal = this.rootSignal;
		if (signal == 9) {
			return ExitCause.KILLED;
		}
		if (signal == 15) {
			return ExitCause.TERMINATED;
		}
		if (this.stopRequested && code == 0 && (this.stdinClosedByStop || this.writer.isClosing())) {
			return ExitCause.CLEAN;
		}
		return ExitCause.UNEXPECTED;
	}

	private Duration uptime() {
		return Duration.ofNanos(System.nanoTime() - this.startNanos);
	}

	@Override
	public String toString() {
		return "StdioServerProcess[" + name() + ", pid " + pid() + "]";
	}

	/** What the stop sequence does to this process. */
	private final class Target implements StopSequence.Target {

		@Override
		public String name() {
			return StdioServerProcess.this.name();
		}

		@Override
		public long pid() {
			return StdioServerProcess.this.pid();
		}

		@Override
		public Process process() {
			return StdioServerProcess.this.process;
		}

		@Override
		public ShutdownTimeouts timeouts() {
			return StdioServerProcess.this.spec.shutdown();
		}

		@Override
		public void drain(long deadlineNanos) {
			StdioServerProcess.this.pending.signal();
			StdioServerProcess.this.writer.awaitIdle(deadlineNanos);
			StdioServerProcess.this.pending.awaitEmpty(deadlineNanos, StdioServerProcess.this.clientTimeoutNanos);
		}

		@Override
		public void closeStdin(Duration bound) throws InterruptedException, ExecutionException, TimeoutException {
			StdinWriter writer = StdioServerProcess.this.writer;
			writer.close((write) -> notRunning("was stopped before the message was sent"));
			if (!writer.isWriting()) {
				writer.closed().get(bound.toNanos(), TimeUnit.NANOSECONDS);
				StdioServerProcess.this.stdinClosedByStop = true;
			}
		}

		@Override
		public void terminateTree(String why) {
			StdioServerProcess.this.terminateTree(why);
		}

		@Override
		public void exited() {
			StdioServerProcess.this.host.exits().check(StdioServerProcess.this.process);
		}

		@Override
		public ExitInfo awaitExit() {
			return StdioServerProcess.this.awaitExit();
		}

	}

	private final class Sink implements StdoutReader.Sink {

		@Override
		public void message(String message, JsonRpcPeek.Peeked peeked) {
			StdioServerProcess.this.spoke = true;
			if (peeked.isResponse()) {
				Pending request = StdioServerProcess.this.pending.answer(peeked.id());
				if (request != null && request.future() != null) {
					request.future().complete(message);
					return;
				}
			}
			try {
				StdioServerProcess.this.listener.onMessage(message);
			}
			catch (RuntimeException ex) {
				logger.error("Listener of MCP server '" + name() + "' failed on a message", ex);
			}
		}

		@Override
		public void protocolError(String description) {
			fail(description);
		}

		@Override
		public void end(@Nullable IOException ex) {
			try {
				// The end of stdout is most often the exit: say so at once
				if (StdioServerProcess.this.process.waitFor(EOF_GRACE_MILLIS, TimeUnit.MILLISECONDS)) {
					StdioServerProcess.this.host.exits().check(StdioServerProcess.this.process);
					return;
				}
			}
			catch (InterruptedException interrupted) {
				Thread.currentThread().interrupt();
			}
			if (StdioServerProcess.this.stopRequested || StdioServerProcess.this.exit.isDone()) {
				return;
			}
			fail((ex != null) ? "its stdout broke (" + ex.getMessage() + ") while the process kept running"
					: "it closed its stdout while the process kept running");
		}

	}

}

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

package dev.mcpstdio.core.server;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import dev.mcpstdio.McpServerExitedException;
import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.containment.Containment;
import dev.mcpstdio.core.tree.ProcessTree;
import dev.mcpstdio.core.server.io.JsonRpcLine;
import dev.mcpstdio.core.server.io.ProcessPipes;
import dev.mcpstdio.core.server.io.ServerPipes;
import dev.mcpstdio.core.support.Waits;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One running stdio MCP server process: its messages, its exit and its bounded stop.
 *
 * @author mcp-stdio authors
 */
public final class StdioServerProcess {

	private static final Log logger = LogFactory.getLog(StdioServerProcess.class);

	/** The version of MCP the handshake mcp-stdio performs itself asks for. */
	static final String PROTOCOL_VERSION = "2025-06-18";

	final StdioServerSpec spec;

	final ProcessParts parts;

	final Process process;

	final ProcessTree tree;

	final Containment containment;

	final MessageListener listener;

	private final Instant startedAt = Instant.now();

	private final long startNanos = System.nanoTime();

	final ProcessPipes pipes;

	final RequestLedger ledger;

	final ExitClassifier classifier;

	private final ProcessSends sends = new ProcessSends(this);

	final CompletableFuture<ExitInfo> exit = new CompletableFuture<>();

	private final AtomicBoolean stopStarted = new AtomicBoolean();

	private final CompletableFuture<StopResult> stopped = new CompletableFuture<>();

	private final Object terminationLock = new Object();

	/** Learns each step of a stop as it begins; tests make a step fail through it. */
	volatile Consumer<Step> stopSteps = (step) -> {
	};

	private StdioServerProcess(StdioServerSpec spec, ProcessParts parts, ProcessLauncher.Launched launched,
			ProcessTree tree, MessageListener listener) {
		this.spec = spec;
		this.parts = parts;
		this.process = launched.process();
		this.tree = tree;
		this.containment = launched.containment();
		this.listener = listener;
		this.classifier = new ExitClassifier(launched.withheldVariables(), spec.origin());
		this.ledger = new RequestLedger(new RequestTimeouts(parts.threads().timer()));
		this.pipes = parts.pipes()
			.open(this.process,
					new ServerPipes.Server(spec.name(), spec.secrets(), spec.sendTimeout(), spec.maxMessageSize(),
							spec.stderrTailLines()),
					() -> fail("it did not read its stdin within " + Waits.format(spec.sendTimeout())),
					new StdoutSink(this));
	}

	/**
	 * Run a launched server process: read its output, write its input, watch its exit.
	 */
	static StdioServerProcess run(StdioServerSpec spec, ProcessParts parts, ProcessLauncher.Launched launched,
			ProcessTree tree, MessageListener listener) {
		StdioServerProcess server = new StdioServerProcess(spec, parts, launched, tree, listener);
		server.pipes.startReading();
		parts.exits().watch(server.process, new ExitSequence(server)::run);
		logger.info("Started " + McpStdioException.describe(spec.name()) + " (pid " + server.pid()
				+ (spec.sandbox().enabled() ? ", sandboxed" : "") + "): " + spec.commandLine());
		return server;
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
		return !this.classifier.stopRequested && !this.exit.isDone() && this.process.isAlive();
	}

	/**
	 * Return the future that completes once the process has ended and its end was told.
	 * @return the exit future
	 */
	public CompletableFuture<ExitInfo> exit() {
		return this.exit;
	}

	public @Nullable ExitInfo exitInfo() {
		return this.exit.getNow(null);
	}

	/**
	 * Return the last lines the server wrote to stderr, sanitized.
	 * @return the stderr tail, oldest first
	 */
	public List<String> stderrTail() {
		return this.pipes.stderrLines();
	}

	public int pendingRequests() {
		return this.ledger.size();
	}

	public boolean isPending(InFlightRequest request) {
		return this.ledger.contains(request.key());
	}

	/**
	 * Count the live processes of this start of the server and their memory.
	 * @return the figures
	 */
	public ProcessTree.Stats treeStats() {
		return this.parts.trees().census().count(name(), List.of(this));
	}

	/**
	 * Tell how long the client waits for a response: a request older than that is given
	 * up on and does not hold the drain step of a stop.
	 * @param timeout the client's request timeout
	 */
	public void setClientRequestTimeout(Duration timeout) {
		this.ledger.clientTimeout(timeout.toNanos());
	}

	/**
	 * Send a message that is not a request.
	 * @param message one JSON-RPC message, without newlines
	 */
	public void send(String message) {
		this.sends.send(JsonRpcLine.of(message), null);
	}

	/**
	 * Send a notification or a response, or a request whose response the listener gets.
	 * @param message one JSON-RPC message, without newlines, read once by the sender
	 * @param requestId the id when the message is a request, tracked until its response
	 * arrives, or {@code null}
	 * @throws McpServerExitedException if the process has ended or ends during the send
	 * @throws McpServerNotRunningException if the server is stopping or stopped
	 * @throws McpStdioException if the message cannot be written within the send timeout
	 */
	public void send(JsonRpcLine message, @Nullable Object requestId) {
		this.sends.send(message, requestId);
	}

	/**
	 * Send a request: its entry is in the ledger until its response arrives (handed to
	 * the listener with the entry, or completing the entry's future), it fails or the
	 * process ends.
	 * @param request the request's entry, not sent before
	 * @throws IllegalArgumentException if a request with its id is in flight
	 * @throws McpServerExitedException if the process has ended or ends during the send
	 * @throws McpServerNotRunningException if the server is stopping or stopped
	 * @throws McpStdioException if the message cannot be written within the send timeout
	 */
	public void send(InFlightRequest request) {
		this.sends.send(request);
	}

	/**
	 * Send a request and get its response instead of passing it to the listener.
	 * @param id the request's id
	 * @param message the request, without newlines
	 * @return a future completed with the response line, or exceptionally with
	 * {@link McpServerExitedException} when the process has ended or ends first
	 */
	public CompletableFuture<String> request(Object id, String message) {
		CompletableFuture<JsonRpcLine> response = sendAwaited(InFlightRequest.awaited(id, JsonRpcLine.of(message)));
		CompletableFuture<String> text = response.thenApply(JsonRpcLine::text);
		// a caller that gives up (cancels) lets the request go, as it would the line
		text.whenComplete((line, ex) -> response.cancel(false));
		return text;
	}

	/**
	 * Send a request whose sender awaits its response in the entry's future.
	 * @param request the request's entry, made with {@link InFlightRequest#awaited}
	 * @return the entry's future, failed when the request could not be sent
	 * @throws IllegalArgumentException if a request with its id is in flight
	 */
	public CompletableFuture<JsonRpcLine> sendAwaited(InFlightRequest request) {
		return this.sends.sendAwaited(request);
	}

	/**
	 * Perform MCP's {@code initialize} handshake, for a server no client initializes.
	 * @param timeout how long the answer may take
	 * @throws McpStdioException if it was refused or not answered in time
	 */
	public void handshake(Duration timeout) {
		this.sends.handshake(timeout);
	}

	McpServerNotRunningException notRunning(String what) {
		return new McpServerNotRunningException(name(), McpStdioException.describe(name()) + " " + what);
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
		this.classifier.stopReason = reason;
		this.classifier.stopCause = cause;
		return true;
	}

	/**
	 * Stop the server: the contract's four steps, each bounded, the stops of a shutdown
	 * looking at their trees together. A step that fails is logged and the later steps
	 * run anyway. Idempotent: every caller gets the result of the one stop.
	 * @return how it went
	 */
	public StopResult stop() {
		if (this.stopStarted.compareAndSet(false, true)) {
			try {
				boolean wasRunning = !this.exit.isDone() && this.process.isAlive();
				this.classifier.stopRequested = true;
				this.stopped.complete(new StopSequence(this).run(wasRunning));
			}
			catch (RuntimeException | Error ex) {
				this.stopped.completeExceptionally(ex);
				throw ex;
			}
		}
		return Waits.await(this.stopped, this.spec.shutdown().worstCase().plusSeconds(5), name(), "finish stopping");
	}

	@Nullable ExitInfo awaitExit(long millis) {
		return Waits.awaitOrNull(this.exit, millis);
	}

	/**
	 * Set a listener of the stop's steps, for tests that make a step fail.
	 * @param listener the listener
	 */
	void onStopStep(Consumer<Step> listener) {
		this.stopSteps = listener;
	}

	void terminateTree(String why, long freshSince) {
		synchronized (this.terminationLock) {
			// the container (through its engine) ends alongside the tree, then the cgroup
			this.containment.terminate(this.spec.shutdown().terminate(),
					() -> this.parts.trees()
						.terminator()
						.terminate(name(), this.tree, this.spec.shutdown().terminate(), why, freshSince,
								this.classifier::signalled));
			this.parts.trees().scanner().invalidate();
			this.containment.release();
		}
	}

	/** Treat the server as failed: its process tree is ended whatever else happens. */
	void fail(String reason) {
		if (this.classifier.stopRequested || this.exit.isDone() || this.classifier.failure != null) {
			return;
		}
		this.classifier.failure = reason;
		logger.warn(McpStdioException.describe(name()) + " (pid " + pid() + ") failed: " + reason
				+ "; terminating its process tree");
		this.parts.threads().tasks().execute(() -> terminateTree("failed: " + reason, System.nanoTime()));
	}

	ExitCause classify(int code) {
		return this.classifier.classify(code, this.pipes.isStdinClosing());
	}

	Duration uptime() {
		return Duration.ofNanos(System.nanoTime() - this.startNanos);
	}

	@Override
	public String toString() {
		return "StdioServerProcess[" + name() + ", pid " + pid() + "]";
	}

	/** The steps of a stop. */
	enum Step {

		DRAIN, CLOSE_STDIN, TERMINATE

	}

	/**
	 * How one stop of a server went.
	 *
	 * @param exit how its process ended
	 * @param duration from step 1 to the last process gone
	 * @param wasRunning whether the process was still running when the stop began
	 */
	public record StopResult(ExitInfo exit, Duration duration, boolean wasRunning) {

		/**
		 * Return the outcome, the cause of the exit.
		 * @return the outcome
		 */
		public ExitCause outcome() {
			return this.exit.cause();
		}

	}

}

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

package dev.mcpstdio.lifecycle.observation;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.mcpstdio.core.support.Waits;
import dev.mcpstdio.McpServerExitedException;
import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.core.server.io.JsonRpcLine;
import dev.mcpstdio.core.secrets.SecretSanitizer;
import dev.mcpstdio.core.secrets.SecretValues;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.RequestObserver;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Observes every JSON-RPC request sent to one server, from its send to its end.
 *
 * @author mcp-stdio authors
 */
public class RequestObservations implements RequestObserver {

	// As mcp.client.operation.duration: a request ends with its response, the failure of
	// its send, the end of the process, the client's cancellation, or no answer within
	// the client's request timeout. With a tracer, each request is a client span whose
	// trace context goes into the request's params._meta.

	/**
	 * Requests under observation at once, per server: past it, new ones are not observed.
	 */
	static final int MAX_IN_FLIGHT = 10_000;

	/** The longest part of a server's error message a span's error gets. */
	static final int MAX_MESSAGE_LENGTH = 1024;

	private static final Log logger = LogFactory.getLog(RequestObservations.class);

	private final McpStdioServer server;

	private final ObservationRegistry registry;

	private final @Nullable McpOperationObservationConvention convention;

	private final ScheduledExecutorService scheduler;

	private final OperationNames names;

	/** The server's secret values, masked in what a span or a log gets of its answers. */
	private final SecretValues secrets;

	private final Map<String, InFlight> inFlight = new ConcurrentHashMap<>();

	private final AtomicBoolean sweepScheduled = new AtomicBoolean();

	private final AtomicBoolean warned = new AtomicBoolean();

	private final AtomicBoolean failureLogged = new AtomicBoolean();

	/**
	 * Create the observations of one server's requests; {@link #attach()} begins them.
	 * @param server the server
	 * @param registry where the observations go
	 * @param convention a convention that replaces the default one, or {@code null}
	 * @param scheduler ends the requests that the client gave up on
	 */
	public RequestObservations(McpStdioServer server, ObservationRegistry registry,
			@Nullable McpOperationObservationConvention convention, ScheduledExecutorService scheduler) {
		this.server = server;
		this.registry = registry;
		this.convention = convention;
		this.scheduler = scheduler;
		this.secrets = server.definition().spec().secrets();
		this.names = new OperationNames(server.name(), this.secrets);
	}

	/** Observe the server's requests from now on. */
	public void attach() {
		this.server.clientConnection().observeRequests(this);
	}

	@Override
	public @Nullable ObservedRequest sending(Object id, JsonRpcLine message) {
		// Nothing is read while no handler listens; no response is read while no request
		// is in flight
		if (this.registry.isNoop()) {
			return null;
		}
		try {
			return begin(id.toString(), message);
		}
		catch (RuntimeException ex) {
			failed("a request could not be observed", ex);
			return null;
		}
	}

	private @Nullable ObservedRequest begin(String key, JsonRpcLine message) {
		if (this.inFlight.size() >= MAX_IN_FLIGHT) {
			if (this.warned.compareAndSet(false, true)) {
				logger.warn(MAX_IN_FLIGHT + " requests to MCP server '" + this.server.name()
						+ "' are in flight unanswered: further ones are not observed until some end");
			}
			return null;
		}
		McpOperationContext context = new McpOperationContext(this.names.operation(message.method(), message.name()),
				key);
		Observation observation = Observation.createNotStarted(this.convention,
				DefaultMcpOperationObservationConvention.INSTANCE, () -> context, this.registry);
		if (observation.isNoop()) {
			return null;
		}
		InFlight request = new InFlight(key, context, observation, message);
		if (this.inFlight.putIfAbsent(key, request) != null) {
			// the server refuses a second request under a pending id: the first one stays
			return null;
		}
		observation.start();
		Map<String, String> propagated = context.propagated();
		if (!propagated.isEmpty()) {
			request.line = message.withMeta(propagated);
		}
		scheduleSweep();
		return request;
	}

	@Override
	public void notifying(JsonRpcLine message) {
		String id = message.cancelledId();
		InFlight request = (id != null) ? this.inFlight.get(id) : null;
		if (request != null) {
			end(request, new Failure("cancelled", "Cancelled by the client"));
		}
	}

	@Override
	public void received(JsonRpcLine message) {
		InFlight request = message.isResponse() ? this.inFlight.get(message.id()) : null;
		if (request != null) {
			ended(request, message, null);
		}
	}

	@Override
	public void exited(ExitInfo exit, List<Object> unansweredRequestIds) {
		if (this.inFlight.isEmpty() || unansweredRequestIds.isEmpty()) {
			return;
		}
		try {
			McpServerExitedException failure = exit.toException();
			for (Object id : unansweredRequestIds) {
				InFlight request = this.inFlight.get(id.toString());
				if (request != null) {
					end(request, failure);
				}
			}
		}
		catch (RuntimeException ex) {
			failed("the end of requests could not be observed", ex);
		}
	}

	/**
	 * End a request by how it went: failed, answered with an error, or answered.
	 * @param request the request
	 * @param response its response, or {@code null} when it failed
	 * @param failure why it failed, or {@code null}
	 */
	private void ended(InFlight request, @Nullable JsonRpcLine response, @Nullable Throwable failure) {
		if (failure != null) {
			end(request, failure);
		}
		else if (response != null && response.isError()) {
			String code = (response.errorCode() != null) ? response.errorCode() : OperationNames.OTHER;
			// the server's text, bounded: it becomes the span's error and may be logged
			String message = (response.errorMessage() != null)
					? SecretSanitizer.quote(response.errorMessage(), MAX_MESSAGE_LENGTH, this.secrets)
					: "JSON-RPC error " + code;
			end(request, new Failure(code, message));
		}
		else if (response != null && response.isToolError()
				&& OperationNames.TOOLS_CALL.equals(request.context.getMethod())) {
			end(request, new Failure("tool_error",
					"Tool '" + request.context.getTarget() + "' answered with isError: true"));
		}
		else {
			end(request, null);
		}
	}

	/**
	 * End a request's observation, once.
	 * @param request the request
	 * @param error why it failed, or {@code null} when it succeeded
	 */
	private void end(InFlight request, @Nullable Throwable error) {
		if (!this.inFlight.remove(request.key, request)) {
			// ended already: answered, timed out, cancelled or the process ended
			return;
		}
		if (error != null) {
			request.context.setErrorType(this.names.errorType(errorType(error)));
			request.observation.error(error);
		}
		request.observation.stop();
	}

	/** The error type of a failure: a {@link Failure}'s own, else the cause's class. */
	private static String errorType(Throwable failure) {
		Throwable cause = failure;
		while ((cause instanceof CompletionException || cause instanceof ExecutionException)
				&& cause.getCause() != null) {
			cause = cause.getCause();
		}
		if (cause instanceof Failure known) {
			return known.errorType();
		}
		if (cause instanceof CancellationException) {
			return "cancelled";
		}
		if (cause instanceof TimeoutException) {
			return "timeout";
		}
		return cause.getClass().getName();
	}

	private void scheduleSweep() {
		Duration timeout = this.server.clientConnection().clientRequestTimeout();
		if (timeout != null && !this.sweepScheduled.get() && this.sweepScheduled.compareAndSet(false, true)) {
			schedule(timeout.toNanos());
		}
	}

	private void schedule(long delayNanos) {
		try {
			this.scheduler.schedule(this::sweep, delayNanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// the host is shutting down: the processes' ends end the requests
			this.sweepScheduled.set(false);
		}
	}

	/**
	 * End the requests older than the client's timeout; look again when the next is due.
	 */
	private void sweep() {
		Duration timeout = this.server.clientConnection().clientRequestTimeout();
		long next = Long.MAX_VALUE;
		try {
			if (timeout != null) {
				long timeoutNanos = timeout.toNanos();
				long now = System.nanoTime();
				for (InFlight request : this.inFlight.values()) {
					long age = now - request.sentAt;
					if (age >= timeoutNanos) {
						end(request, new Failure("timeout",
								"No response within the client's request timeout of " + Waits.format(timeout)));
					}
					else {
						next = Math.min(next, timeoutNanos - age);
					}
				}
			}
		}
		catch (RuntimeException ex) {
			failed("requests past their timeout could not be ended", ex);
		}
		finally {
			this.sweepScheduled.set(false);
		}
		if (timeout != null && !this.inFlight.isEmpty() && this.sweepScheduled.compareAndSet(false, true)) {
			schedule((next != Long.MAX_VALUE) ? next : timeout.toNanos());
		}
	}

	private void failed(String what, RuntimeException ex) {
		// telemetry must never break the traffic it observes: said once, then at DEBUG
		if (this.failureLogged.compareAndSet(false, true)) {
			logger.warn("MCP server '" + this.server.name() + "': " + what + " (said once; the rest at DEBUG)", ex);
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("MCP server '" + this.server.name() + "': " + what, ex);
		}
	}

	@Override
	public String toString() {
		return "RequestObservations[" + this.server.name() + "]";
	}

	/** One request under observation. */
	private final class InFlight implements ObservedRequest {

		private final String key;

		private final McpOperationContext context;

		private final Observation observation;

		private final long sentAt = System.nanoTime();

		private volatile JsonRpcLine line;

		InFlight(String key, McpOperationContext context, Observation observation, JsonRpcLine line) {
			this.key = key;
			this.context = context;
			this.observation = observation;
			this.line = line;
		}

		@Override
		public JsonRpcLine message() {
			return this.line;
		}

		@Override
		public void completed(@Nullable JsonRpcLine response, @Nullable Throwable failure) {
			try {
				ended(this, response, failure);
			}
			catch (RuntimeException ex) {
				failed("the end of a request could not be observed", ex);
			}
		}

	}

	/**
	 * Why a request failed when no exception says it, as the span's error: a JSON-RPC
	 * error, a tool's error, no answer in time, a cancellation.
	 */
	static final class Failure extends RuntimeException {

		private final String errorType;

		Failure(String errorType, String message) {
			// no stack trace: where the failure is noticed says nothing about it
			super(message, null, false, false);
			this.errorType = errorType;
		}

		String errorType() {
			return this.errorType;
		}

	}

}

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

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.server.InFlightRequest;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.RequestObserver;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;

/**
 * Observes every JSON-RPC request sent to one server, from its send to its end.
 *
 * @author mcp-stdio authors
 */
public class RequestObservations implements RequestObserver {

	// As mcp.client.operation.duration: a request ends with its response, the failure of
	// its send, the end of the process, the client's cancellation, or no answer within
	// the client's request timeout. With a tracer, each request is a client span whose
	// trace context goes into the request's params._meta. The observation rides on the
	// request's entry in the process's ledger, which tells it how the request ended.

	/**
	 * Requests under observation at once, per server: past it, new ones are not observed.
	 */
	static final int MAX_IN_FLIGHT = 10_000;

	private static final Log logger = LogFactory.getLog(RequestObservations.class);

	private final McpStdioServer server;

	private final ObservationRegistry registry;

	private final @Nullable McpOperationObservationConvention convention;

	private final OperationNames names;

	private final RequestOutcomes outcomes;

	/** Requests under observation now: a count, the requests being the ledger's. */
	private final AtomicInteger observing = new AtomicInteger();

	private final AtomicBoolean warned = new AtomicBoolean();

	private final AtomicBoolean failureLogged = new AtomicBoolean();

	/**
	 * Create the observations of one server's requests; {@link #attach()} begins them.
	 * @param server the server
	 * @param registry where the observations go
	 * @param convention a convention that replaces the default one, or {@code null}
	 */
	public RequestObservations(McpStdioServer server, ObservationRegistry registry,
			@Nullable McpOperationObservationConvention convention) {
		this.server = server;
		this.registry = registry;
		this.convention = convention;
		this.names = new OperationNames(server.name(), server.definition().spec().secrets());
		this.outcomes = new RequestOutcomes(this.names, server.definition().spec().secrets());
	}

	/** Observe the server's requests from now on. */
	public void attach() {
		this.server.clientConnection().observeRequests(this);
	}

	@Override
	public void sending(InFlightRequest request) {
		// Nothing is read while no handler listens
		if (this.registry.isNoop()) {
			return;
		}
		try {
			observe(request);
		}
		catch (RuntimeException ex) {
			failed("a request could not be observed", ex);
		}
	}

	private void observe(InFlightRequest request) {
		if (this.observing.get() >= MAX_IN_FLIGHT) {
			if (this.warned.compareAndSet(false, true)) {
				logger.warn(LogMessage.format(
						"%s requests to %s are in flight unanswered: further ones are not observed until some end",
						MAX_IN_FLIGHT, McpStdioException.describe(this.server.name())));
			}
			return;
		}
		McpOperationContext context = new McpOperationContext(
				this.names.operation(request.method(), request.request().name()), request.key());
		Observation observation = Observation.createNotStarted(this.convention,
				DefaultMcpOperationObservationConvention.INSTANCE, () -> context, this.registry);
		if (!observation.isNoop()) {
			ObservedRequest observed = new ObservedRequest(this, context, observation);
			// from the send: a lazy or idle server's start, a restart waited for
			observed.start();
			request.observe(observed);
		}
	}

	/** A request's observation began. */
	void began() {
		this.observing.incrementAndGet();
	}

	/** A request's observation that began ended. */
	void ended() {
		this.observing.decrementAndGet();
	}

	RequestOutcomes outcomes() {
		return this.outcomes;
	}

	void failed(String what, RuntimeException ex) {
		// telemetry must never break the traffic it observes: said once, then at DEBUG
		if (this.failureLogged.compareAndSet(false, true)) {
			logger.warn(LogMessage.format("%s: %s (said once; the rest at DEBUG)",
					McpStdioException.describe(this.server.name()), what), ex);
		}
		else if (logger.isDebugEnabled()) {
			logger.debug(LogMessage.format("%s: %s", McpStdioException.describe(this.server.name()), what), ex);
		}
	}

	@Override
	public String toString() {
		return "RequestObservations[" + this.server.name() + "]";
	}

}

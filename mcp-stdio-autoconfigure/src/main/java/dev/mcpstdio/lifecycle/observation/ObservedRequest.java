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

import java.util.Map;

import dev.mcpstdio.core.server.InFlightRequest;
import dev.mcpstdio.core.server.io.JsonRpcLine;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * The observation of one request, in the observer's slot of its ledger entry: begun as
 * the request is sent, ended once by whatever ends the request.
 *
 * @author mcp-stdio authors
 */
final class ObservedRequest implements InFlightRequest.Observer {

	private final RequestObservations observations;

	private final McpOperationContext context;

	private final Observation observation;

	ObservedRequest(RequestObservations observations, McpOperationContext context, Observation observation) {
		this.observations = observations;
		this.context = context;
		this.observation = observation;
	}

	@Override
	public JsonRpcLine opened(InFlightRequest request) {
		try {
			Map<String, String> propagated = this.context.propagated();
			// the trace context a tracer asked for goes into the request's params._meta
			return propagated.isEmpty() ? request.request() : request.request().withMeta(propagated);
		}
		catch (RuntimeException ex) {
			this.observations.failed("a request could not be observed", ex);
			return request.request();
		}
	}

	@Override
	public void ended(InFlightRequest request, @Nullable JsonRpcLine response, @Nullable Throwable failure) {
		try {
			Throwable error = this.observations.outcomes().error(this.context, response, failure);
			if (error != null) {
				this.context.setErrorType(this.observations.outcomes().errorType(error));
				this.observation.error(error);
			}
			this.observation.stop();
		}
		catch (RuntimeException ex) {
			this.observations.failed("the end of a request could not be observed", ex);
		}
		finally {
			this.observations.ended();
		}
	}

	/**
	 * Begin the observation, before the entry is handed on: ended once, by the ledger.
	 */
	void start() {
		this.observation.start();
		this.observations.began();
	}

}

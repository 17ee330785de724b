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

import java.io.IOException;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.server.io.JsonRpcLine;
import dev.mcpstdio.core.server.io.LineSink;
import dev.mcpstdio.core.support.Waits;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The sink of one server process's stdout: a response completes its request in the
 * ledger, every other message goes to the listener, the end of the stream is most often
 * the exit.
 *
 * @author mcp-stdio authors
 */
final class StdoutSink implements LineSink {

	private static final Log logger = LogFactory.getLog(StdoutSink.class);

	/** How long a stdout that ended may wait for the process to follow. */
	private static final long EOF_GRACE_MILLIS = 500;

	private final StdioServerProcess server;

	private final Process process;

	private final ProcessParts parts;

	StdoutSink(StdioServerProcess server) {
		this.server = server;
		this.process = server.process;
		this.parts = server.parts;
	}

	/** The stdout reader hands a message over. */
	@Override
	public void line(JsonRpcLine line) {
		this.server.classifier.spoke = true;
		InFlightRequest request = line.isResponse() ? this.server.ledger.close(line.id()) : null;
		if (request != null && request.future() != null) {
			request.future().complete(line);
			return;
		}
		if (request != null) {
			// its observation ends before the listener, which may send the next request
			request.ended(line, null);
		}
		try {
			// handed on with its closed entry: nobody looks its id up again
			this.server.listener.onMessage(line, request);
		}
		catch (RuntimeException ex) {
			logger.error("Listener of " + McpStdioException.describe(this.server.name()) + " failed on a message", ex);
		}
	}

	/** The stdout reader reached the end of stdout, or a read failed. */
	@Override
	public void ended(@Nullable IOException ex) {
		// The end of stdout is most often the exit: say so at once
		if (Waits.await(this.process, EOF_GRACE_MILLIS)) {
			this.parts.exits().check(this.process);
			return;
		}
		// (not a failure once a stop began or the exit was told: fail() says so)
		this.server.fail((ex != null) ? "its stdout broke (" + ex.getMessage() + ") while the process kept running"
				: "it closed its stdout while the process kept running");
	}

	@Override
	public void failed(String reason) {
		this.server.fail(reason);
	}

}

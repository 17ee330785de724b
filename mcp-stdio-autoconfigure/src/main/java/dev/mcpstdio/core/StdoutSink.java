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
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import dev.mcpstdio.core.PendingRequests.Pending;
import dev.mcpstdio.core.io.JsonRpcPeek;
import dev.mcpstdio.core.io.StdoutReader;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Where the stdout of one server process goes: a response to a request made with
 * {@code request} completes its future, every other message goes to the listener, a
 * protocol error fails the server, and the end of stdout is either the exit (told at
 * once) or, while the process keeps running, a failure.
 *
 * @author mcp-stdio authors
 */
final class StdoutSink implements StdoutReader.Sink {

	private static final Log logger = LogFactory.getLog(StdoutSink.class);

	/** How long a stdout that ended may wait for the process to follow. */
	private static final long EOF_GRACE_MILLIS = 500;

	private final String name;

	private final Process process;

	private final PendingRequests pending;

	private final MessageListener listener;

	private final ExitClassifier classifier;

	private final ExitWatcher exits;

	private final Future<ExitInfo> exit;

	/** Treats the server as failed, for the reason given. */
	private final Consumer<String> fail;

	StdoutSink(String name, Process process, PendingRequests pending, MessageListener listener,
			ExitClassifier classifier, ExitWatcher exits, Future<ExitInfo> exit, Consumer<String> fail) {
		this.name = name;
		this.process = process;
		this.pending = pending;
		this.listener = listener;
		this.classifier = classifier;
		this.exits = exits;
		this.exit = exit;
		this.fail = fail;
	}

	@Override
	public void message(String message, JsonRpcPeek.Peeked peeked) {
		this.classifier.spoke();
		if (peeked.isResponse()) {
			Pending request = this.pending.answer(peeked.id());
			if (request != null && request.future() != null) {
				request.future().complete(message);
				return;
			}
		}
		try {
			this.listener.onMessage(message);
		}
		catch (RuntimeException ex) {
			logger.error("Listener of MCP server '" + this.name + "' failed on a message", ex);
		}
	}

	@Override
	public void protocolError(String description) {
		this.fail.accept(description);
	}

	@Override
	public void end(@Nullable IOException ex) {
		try {
			// The end of stdout is most often the exit: say so at once
			if (this.process.waitFor(EOF_GRACE_MILLIS, TimeUnit.MILLISECONDS)) {
				this.exits.check(this.process);
				return;
			}
		}
		catch (InterruptedException interrupted) {
			Thread.currentThread().interrupt();
		}
		if (this.classifier.stopRequested() || this.exit.isDone()) {
			return;
		}
		this.fail.accept((ex != null) ? "its stdout broke (" + ex.getMessage() + ") while the process kept running"
				: "it closed its stdout while the process kept running");
	}

}

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

package dev.mcpstdio.lifecycle;

import java.util.concurrent.atomic.AtomicBoolean;

import dev.mcpstdio.McpServerStartupException;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.core.server.StdioServerProcess.StopResult;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;

/**
 * The application's lifecycle of one server bean: its start with the application (a
 * required server that cannot start stops start-up), its stop with one line per server at
 * shutdown, and its end for good when the bean is destroyed.
 *
 * @author mcp-stdio authors
 */
final class ServerLifecycle {

	// Logged as the server's own messages
	private static final Log logger = LogFactory.getLog(McpStdioServer.class);

	private final McpStdioServer server;

	private final ServerController controller;

	/** The instances of a per-user server, else {@code null}. */
	private final @Nullable UserInstances instances;

	private volatile boolean running;

	/** Set once the server is stopped for good, its listeners told. */
	private final AtomicBoolean closed = new AtomicBoolean();

	/**
	 * Create the lifecycle of a server.
	 * @param server the server
	 * @param controller its state machine
	 * @param instances its instances when it is per-user, else {@code null}
	 */
	ServerLifecycle(McpStdioServer server, ServerController controller, @Nullable UserInstances instances) {
		this.server = server;
		this.controller = controller;
		this.instances = instances;
	}

	/** Await the start begun for every server at once; see {@link McpStdioServers}. */
	void start() {
		McpStdioServerDefinition definition = this.server.definition();
		if (!definition.enabled()) {
			return;
		}
		this.running = true;
		try {
			this.controller.starts().awaitLifecycleStart();
		}
		catch (RuntimeException ex) {
			if (definition.required()) {
				throw McpServerStartupException.required(definition.name(), ex.getMessage(), ex);
			}
			logger.error(LogMessage.format(
					"%s could not start and is FAILED (it is not required, so the application goes on): %s",
					McpStdioException.describe(definition.name()), ex.getMessage()));
		}
	}

	/** Stop the server by the ordered stop, and say so for one that had ended before. */
	void stop() {
		ServerState before = this.server.state();
		try {
			StopResult result = this.server.stopServer();
			if ((result == null || !result.wasRunning()) && this.running && before != ServerState.STOPPED
					&& before != ServerState.DISABLED && before != ServerState.IDLE) {
				// One line per server at shutdown, also for one that had ended before
				ExitInfo exit = this.server.lastExit();
				String how = (exit != null)
						? ": " + exit.cause() + ", exit code " + exit.describeExitCode() + " at " + exit.at() : "";
				logger.info(LogMessage.format("%s had already ended (%s)%s",
						McpStdioException.describe(this.server.name()), before, how));
			}
		}
		finally {
			this.running = false;
		}
	}

	boolean isRunning() {
		return this.running;
	}

	/** Stop the server and its instances for good, and tell its listeners once. */
	void destroy() {
		// Also reached when start-up aborts before the lifecycle ran: nothing is left,
		// and nothing starts it again (nor any of its instances)
		this.controller.stops().close();
		if (this.instances != null) {
			this.instances.stopAll();
		}
		if (this.closed.compareAndSet(false, true)) {
			this.controller.events().closed();
		}
	}

	boolean isClosed() {
		return this.closed.get();
	}

}

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

import java.time.Duration;
import java.util.function.LongPredicate;

import dev.mcpstdio.core.server.MessageListener;
import org.jspecify.annotations.Nullable;

/**
 * What a client integration is handed to run its session over an McpStdioServer.
 *
 * @author mcp-stdio authors
 * @see McpStdioServer#clientConnection()
 */
public interface ClientConnection {

	// Who performs the handshake, where the process's messages go, and the starts a
	// client joins or gives up on (the Spring AI transport, the per-request
	// observations). Users and operators start, stop and restart a server through the
	// server itself.

	/**
	 * Choose who performs the MCP handshake: the server itself at start (the default), or
	 * a client such as Spring AI's.
	 * @param selfInitialize whether the server performs the handshake
	 */
	void setSelfInitialize(boolean selfInitialize);

	/** Record that the running process answered {@code initialize}. */
	void markInitialized();

	/**
	 * Route the process's messages and its end to a client session.
	 * @param listener the session, replacing any earlier one
	 */
	void attach(MessageListener listener);

	/**
	 * Stop routing messages to a session.
	 * @param listener the session to detach, if it is still attached
	 */
	void detach(MessageListener listener);

	/**
	 * Tell how long the client waits for a response (Spring AI's
	 * {@code spring.ai.mcp.client.request-timeout}): a request older than that does not
	 * hold the drain step of a stop.
	 * @param timeout the client's request timeout
	 */
	void setClientRequestTimeout(Duration timeout);

	/**
	 * Let an observer learn of every request sent to this server and how it ended (the
	 * per-request telemetry).
	 * @param observer the observer, replacing any earlier one
	 */
	void observeRequests(RequestObserver observer);

	/**
	 * Start the server if it is {@link ServerState#IDLE} (lazy and not used yet, or
	 * stopped by its {@code idle-timeout}), or join its start under way, and wait until
	 * it runs. Messages sent with {@link McpStdioServer#send},
	 * {@link McpStdioServer#request} and
	 * {@link #send(String, Object, java.util.function.LongPredicate)} do this themselves.
	 * Does nothing for a server that is not started on demand.
	 * @throws dev.mcpstdio.McpStdioException if it could not start
	 */
	void startOnDemand();

	/**
	 * Join the server's start, for a client that connects: await the start the lifecycle
	 * began (the Spring AI integration begins it for every server at once), else start
	 * the server now. Never runs a second process for a start that was begun: when its
	 * process has ended, the client's messages fail naming the exit until a restart (by
	 * the policy or an operator) runs a new one.
	 * @throws dev.mcpstdio.McpServerNotRunningException if the server is disabled or a
	 * stop came first
	 * @throws dev.mcpstdio.McpStdioException if the start the lifecycle began failed
	 */
	void joinStart();

	/**
	 * Send a message of a client's session over the one path of a send: the server
	 * started on demand, then one wait for a settled state (no lock while settled), then
	 * {@code settled} told the generation of the process the message goes to, before the
	 * message is written: a client resumes its session on a new process there.
	 * @param message one JSON-RPC message
	 * @param requestId its id when it is a request, else {@code null}
	 * @param settled runs once settled; {@code false} sends nothing; or {@code null}
	 * @throws dev.mcpstdio.McpStdioException as {@link McpStdioServer#send} does
	 */
	void send(String message, @Nullable Object requestId, @Nullable LongPredicate settled);

	/**
	 * Wait while the server is between processes (a start, or a restart pending or under
	 * way) for that one start, bounded by the restart's backoff plus
	 * {@code startup-timeout}. Every send does this once, before the hook of
	 * {@link #send(String, Object, java.util.function.LongPredicate)}, where a client
	 * resumes its session on a new process without waiting again.
	 * @throws dev.mcpstdio.McpServerExitedException if the start waited for failed and
	 * another restart is pending: the caller is told of that exit instead of waiting for
	 * the next start; and at once, without waiting, when the server crash-loops (the
	 * process the last restart ran ended before it was initialized)
	 */
	void awaitSettled();

	/**
	 * Give up on the server: stop what runs of it, cancel a pending restart and leave it
	 * {@link ServerState#FAILED FAILED}. For a client that could not initialize it at
	 * start-up and goes on without it.
	 * @param reason why, shown by the endpoint as the last failure
	 */
	void giveUp(String reason);

	/**
	 * Return the generation of the current process: 1 for the first start, one more for
	 * every later one. A client session uses it to notice that it talks to a new process.
	 * @return the generation, 0 before the first start
	 */
	long generation();

}

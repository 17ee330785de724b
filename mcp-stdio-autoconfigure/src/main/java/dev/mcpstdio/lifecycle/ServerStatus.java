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

import java.util.List;
import java.util.stream.Stream;

import dev.mcpstdio.core.server.StdioServerProcess;
import org.jspecify.annotations.Nullable;

/**
 * What everyone reads of one server without its lock: its state, its current process and
 * that one's generation, whether it is initialized, why its last start failed. Written
 * under the state machine's lock by it, its starts and its stops (but for a client's
 * handshake, which marks the running process initialized); the state by
 * {@link ServerController} alone. Every value is volatile, so that a send's fast path,
 * the endpoint and the usage supervisor read it as it is now.
 *
 * @author mcp-stdio authors
 */
final class ServerStatus {

	private volatile ServerState state;

	private volatile @Nullable StdioServerProcess process;

	private volatile long generation;

	private volatile boolean initialized;

	private volatile @Nullable String lastFailure;

	ServerStatus(ServerState state) {
		this.state = state;
	}

	ServerState state() {
		return this.state;
	}

	/**
	 * Change the state: for {@link ServerController#setState(ServerState)} only, which
	 * also wakes the waiting sends and tells the listeners.
	 * @param state the state
	 */
	void state(ServerState state) {
		this.state = state;
	}

	/**
	 * Return the current process, running or ended, or {@code null} before the first
	 * start.
	 * @return the process
	 */
	@Nullable StdioServerProcess process() {
		return this.process;
	}

	List<StdioServerProcess> processes() {
		return Stream.ofNullable(this.process).toList();
	}

	/**
	 * Make a process the current one.
	 * @param process the process just started
	 */
	void process(StdioServerProcess process) {
		this.process = process;
	}

	/**
	 * Return the generation of the current process: 1 for the first start, one more for
	 * every later one, 0 before the first.
	 * @return the generation
	 */
	long generation() {
		return this.generation;
	}

	/**
	 * Count the next generation, for a process about to start.
	 * @return its number
	 */
	long nextGeneration() {
		return ++this.generation;
	}

	/**
	 * Return whether the current process answered {@code initialize}, whatever the state.
	 * @return whether it was initialized
	 */
	boolean initialized() {
		return this.initialized;
	}

	/**
	 * Return whether the server runs and its process answered {@code initialize}.
	 * @return whether it is initialized
	 */
	boolean isInitialized() {
		return this.initialized && this.state == ServerState.RUNNING;
	}

	void initialized(boolean initialized) {
		this.initialized = initialized;
	}

	/**
	 * Return why the last start failed when no process exit explains it.
	 * @return the failure or {@code null}
	 */
	@Nullable String lastFailure() {
		return this.lastFailure;
	}

	void lastFailure(@Nullable String failure) {
		this.lastFailure = failure;
	}

}

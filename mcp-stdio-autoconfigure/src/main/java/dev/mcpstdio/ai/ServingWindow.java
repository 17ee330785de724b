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

package dev.mcpstdio.ai;

import java.util.ArrayList;
import java.util.List;

import dev.mcpstdio.lifecycle.McpStdioServer;

import org.springframework.context.SmartLifecycle;

/**
 * Whether the application serves: from just after its MCP servers started until just
 * before they stop. A server given up on at start-up (it did not answer its client's
 * {@code initialize} in time) is stopped only once the window opens, so that its stop
 * does not race the servers' own start.
 *
 * @author mcp-stdio authors
 */
final class ServingWindow implements SmartLifecycle {

	/** Just above the servers': started after them, stopped before them. */
	static final int PHASE = McpStdioServer.PHASE + 1;

	private volatile boolean open;

	/** What waits for the window to open: at most one task per server left out. */
	private final List<Runnable> whenOpen = new ArrayList<>();

	@Override
	public void start() {
		List<Runnable> tasks;
		synchronized (this.whenOpen) {
			this.open = true;
			tasks = new ArrayList<>(this.whenOpen);
			this.whenOpen.clear();
		}
		tasks.forEach(Runnable::run);
	}

	/**
	 * Run a task once the window is open: now when it is. For work that must wait for the
	 * servers' lifecycle start, such as giving up on a server left out at start-up, whose
	 * stop would otherwise race with that start.
	 * @param task what to run, quickly (it hands longer work to a thread of its own)
	 */
	void whenOpen(Runnable task) {
		synchronized (this.whenOpen) {
			if (!this.open) {
				this.whenOpen.add(task);
				return;
			}
		}
		task.run();
	}

	@Override
	public void stop() {
		this.open = false;
	}

	@Override
	public boolean isRunning() {
		return this.open;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	/**
	 * Return whether the application serves.
	 * @return whether the window is open
	 */
	boolean isOpen() {
		return this.open;
	}

}

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

/**
 * One user's instance of a per-user server and how many callers hold it; guarded by the
 * lock of its {@link UserInstances}.
 *
 * @author mcp-stdio authors
 */
final class InstanceSlot implements ServerListener {

	private final String key;

	private final McpStdioServer instance;

	private final UserInstances owner;

	private int leases;

	/**
	 * Create the slot of an instance, told of its changes of state.
	 * @param key its user's key
	 * @param instance the instance
	 * @param owner the instances it is one of, whose lock guards it
	 */
	InstanceSlot(String key, McpStdioServer instance, UserInstances owner) {
		this.key = key;
		this.instance = instance;
		this.owner = owner;
		instance.addListener(this);
	}

	String key() {
		return this.key;
	}

	McpStdioServer instance() {
		return this.instance;
	}

	/** Called holding the map's lock. */
	int leases() {
		return this.leases;
	}

	/** Called holding the map's lock. */
	ServerLease hold() {
		this.leases++;
		return new ServerLease(this.instance, this::release);
	}

	private void release() {
		boolean gone;
		synchronized (this.owner) {
			this.leases--;
			this.owner.notifyAll();
			gone = this.leases == 0 && !usable();
		}
		if (gone) {
			this.owner.removeIfGone(this);
		}
	}

	/** Whether its instance serves its user's calls; else a new one replaces it. */
	boolean usable() {
		ServerState state = this.instance.state();
		return state != ServerState.FAILED && state != ServerState.STOPPED && state != ServerState.STOPPING
				&& (state != ServerState.IDLE || this.instance.process() == null);
	}

	/**
	 * Called holding the map's lock: whether it may be stopped to make room: nobody holds
	 * it (a caller holds it through its requests, the gathering through its listing), and
	 * it is neither starting nor restarting. A request its caller gave up on does not
	 * hold it: the stop's drain does not wait for it either.
	 */
	boolean free() {
		ServerState state = this.instance.state();
		return this.leases == 0 && state != ServerState.STARTING && state != ServerState.RESTARTING;
	}

	@Override
	public void stateChanged(McpStdioServer server, ServerState state) {
		this.owner.changed(this);
	}

}

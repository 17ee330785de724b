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

import java.util.ArrayList;
import java.util.List;

import dev.mcpstdio.core.ExitInfo;
import dev.mcpstdio.core.MessageListener;

/**
 * Routes the messages and the end of one generation's process: the messages to the
 * session, the end first to the state machine (which knows whether that generation is
 * still the current one), then to the session.
 *
 * @param generation the generation of the process
 * @param session receives the messages and the end of every process
 * @param exits learns each end first
 * @author mcp-stdio authors
 */
record GenerationDispatcher(long generation, MessageListener session, ExitHandler exits) implements MessageListener {

	@Override
	public void onMessage(String message) {
		this.session.onMessage(message);
	}

	@Override
	public void onExit(ExitInfo exit, List<Object> unansweredRequestIds) {
		this.exits.exited(this.generation, exit);
		this.session.onExit(exit, new ArrayList<>(unansweredRequestIds));
	}

	/** Learns the exit of a generation's process. */
	interface ExitHandler {

		void exited(long generation, ExitInfo exit);

	}

}

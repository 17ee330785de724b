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

import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.core.server.InFlightRequest;
import dev.mcpstdio.core.server.MessageListener;
import dev.mcpstdio.core.server.io.JsonRpcLine;
import org.jspecify.annotations.Nullable;

/**
 * The routing of one generation's messages and end to the client side: the end first to
 * the state machine.
 *
 * @author mcp-stdio authors
 */
final class GenerationRouting implements MessageListener {

	private final long number;

	private final ServerController controller;

	private final MessageListener client;

	/**
	 * Create the routing of a generation.
	 * @param number its generation
	 * @param controller the state machine, told of its end first
	 * @param client where its messages and end go on to
	 */
	GenerationRouting(long number, ServerController controller, MessageListener client) {
		this.number = number;
		this.controller = controller;
		this.client = client;
	}

	@Override
	public void onMessage(JsonRpcLine message) {
		this.client.onMessage(message);
	}

	@Override
	public void onMessage(JsonRpcLine message, @Nullable InFlightRequest answered) {
		this.client.onMessage(message, answered);
	}

	@Override
	public void onExit(ExitInfo exit, List<InFlightRequest> unanswered) {
		this.controller.exited(this.number, exit);
		this.client.onExit(exit, unanswered);
	}

}

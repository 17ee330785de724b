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
import java.util.Map;

import dev.mcpstdio.core.server.StdioServerSpec;
import org.jspecify.annotations.Nullable;

/**
 * One configured server: what to start and how to manage it.
 *
 * @author mcp-stdio authors
 */
public record McpStdioServerDefinition(StdioServerSpec spec, boolean enabled, boolean required, RestartPolicy restart,
		Demand demand, Limits limits) {

	public String name() {
		return this.spec.name();
	}

	/**
	 * When a server is started and when it is stopped for being idle.
	 *
	 * @param start whether its process starts with the application or by its first
	 * message
	 * @param idleTimeout how long it may go without a request before it is stopped, or
	 * {@code null} for never
	 * @param perUser its instances when each user gets their own, else {@code null}
	 */
	public record Demand(StartMode start, @Nullable Duration idleTimeout, @Nullable PerUser perUser) {

		public Demand {
			// a per-user server is a template: its instances start on their users' demand
			start = (perUser != null) ? StartMode.LAZY : start;
		}

		public Demand(StartMode start, @Nullable Duration idleTimeout) {
			this(start, idleTimeout, null);
		}

		/**
		 * Return whether the server's process comes and goes with its use.
		 * @return whether it is lazy or has an idle timeout
		 */
		public boolean onDemand() {
			return this.start == StartMode.LAZY || this.idleTimeout != null;
		}

	}

	/**
	 * One instance of the server per user, started on that user's demand.
	 *
	 * @param maxInstances the most instances at once
	 * @param instanceWait how long a call waits for an instance to be free when there are
	 * {@code maxInstances}, all in use
	 * @param userEnv variables resolved for the user when their instance starts, such as
	 * {@code oauth2:github}
	 */
	public record PerUser(int maxInstances, Duration instanceWait, Map<String, String> userEnv) {

		public PerUser {
			userEnv = Map.copyOf(userEnv);
		}

	}

	/**
	 * The resources a server's process tree may use, as the endpoint measures them.
	 *
	 * @param maxMemoryBytes the most resident memory of the whole tree, or {@code null}
	 * for no limit
	 * @param maxProcesses the most live processes in the tree, or {@code null} for no
	 * limit
	 * @param checkInterval how often they are checked
	 */
	public record Limits(@Nullable Long maxMemoryBytes, @Nullable Integer maxProcesses, Duration checkInterval) {

		/**
		 * Return whether any limit is set.
		 * @return whether the server is checked at all
		 */
		public boolean any() {
			return this.maxMemoryBytes != null || this.maxProcesses != null;
		}

	}

}

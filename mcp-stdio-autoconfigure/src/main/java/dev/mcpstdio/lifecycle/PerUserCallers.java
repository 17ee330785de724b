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

import java.util.Map;

import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.secrets.SecretValues;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.core.support.Waits;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.Demand;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition.PerUser;
import org.jspecify.annotations.Nullable;

/**
 * Who calls a per-user server: the user authenticated on the calling thread, the refusals
 * of a call (without a user, without a free instance), and the user's {@code user-env}
 * values, resolved for their new instance.
 *
 * @author mcp-stdio authors
 */
final class PerUserCallers {

	private final McpStdioServerDefinition definition;

	private final String name;

	private final PerUser perUser;

	private final @Nullable ServerUsers users;

	/**
	 * Create the callers of a per-user server.
	 * @param definition the per-user server
	 * @param perUser its per-user settings
	 * @param users who calls, {@code null} without Spring Security to tell
	 */
	PerUserCallers(McpStdioServerDefinition definition, PerUser perUser, @Nullable ServerUsers users) {
		this.definition = definition;
		this.name = definition.name();
		this.perUser = perUser;
		this.users = users;
	}

	/**
	 * Return the user authenticated on this thread, when there is one.
	 * @return the user or {@code null}
	 */
	@Nullable ServerUser user() {
		return (this.users != null) ? this.users.current() : null;
	}

	/**
	 * Return the user authenticated on this thread.
	 * @throws McpStdioException when there is none: never a shared or another user's
	 * instance in their place
	 */
	ServerUser current() {
		ServerUser user = user();
		if (user == null) {
			throw noUserRefusal();
		}
		return user;
	}

	McpStdioException noUserRefusal() {
		return new McpStdioException(this.name,
				McpStdioException.describe(this.name) + " runs one instance per user "
						+ "(instances: per-user) and this call has no authenticated user ("
						+ ((this.users != null) ? "none, or an anonymous one" : "no Spring Security to tell one")
						+ "): it is refused, never sent to a shared or another user's instance");
	}

	/** Resolve a user's values: whatever the source throws says which server. */
	Map<String, String> env(ServerUser user) {
		try {
			return user.env(this.name, this.perUser.userEnv());
		}
		catch (McpStdioException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			// the source's own message may hold what it resolves (a token, a vault
			// session): only the kind of failure is told, and the exception not kept
			throw new McpStdioException(this.name,
					McpStdioException.describe(this.name)
							+ " cannot start an instance for the calling user: their user-env "
							+ "values could not be resolved (the source of the values, the McpStdioUsers bean or "
							+ "the OAuth2 client manager, threw " + ex.getClass().getName()
							+ "; its message is left out, as it may hold a secret)");
		}
	}

	/**
	 * Refuse a call while the per-user server itself does not serve its users.
	 * @param state its state, other than IDLE
	 * @return the refusal
	 */
	McpServerNotRunningException notServing(ServerState state) {
		return new McpServerNotRunningException(this.name,
				McpStdioException.describe(this.name) + " is " + state + ": it starts no instance");
	}

	/**
	 * Refuse a call that found no instance free within {@code instance-wait}.
	 * @param instances the instances there are, all in use
	 * @return the refusal, saying which properties to raise
	 */
	McpStdioException allInUse(int instances) {
		return new McpStdioException(this.name,
				McpStdioException.describe(this.name) + " has " + instances + " instances (max-instances "
						+ this.perUser.maxInstances() + "), all in use, and none was free within " + "instance-wait ("
						+ Waits.format(this.perUser.instanceWait()) + "): the call is refused (raise mcp.stdio.servers."
						+ this.name + ".max-instances, or .instance-wait)");
	}

	/**
	 * Refuse a call whose wait for an instance was interrupted.
	 * @param ex the interruption
	 * @return the refusal
	 */
	McpStdioException interrupted(InterruptedException ex) {
		return new McpStdioException(this.name,
				McpStdioException.describe(this.name) + ": the wait for an instance was interrupted", ex);
	}

	/**
	 * Return the definition of a user's new instance: the server's, lazy, with their
	 * values added, all of them secret.
	 * @param userEnv the user's values
	 * @return the instance's definition
	 */
	McpStdioServerDefinition definitionFor(Map<String, String> userEnv) {
		StdioServerSpec spec = this.definition.spec();
		StdioServerSpec own = spec.withEnv(userEnv)
			.toBuilder()
			.secrets(spec.secrets().and(SecretValues.of(userEnv.values())))
			.build();
		Demand demand = new Demand(StartMode.LAZY, this.definition.demand().idleTimeout());
		return new McpStdioServerDefinition(own, true, false, this.definition.restart(), demand,
				this.definition.limits());
	}

}

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

package dev.mcpstdio.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.lifecycle.ServerUser;
import dev.mcpstdio.lifecycle.ServerUsers;
import org.jspecify.annotations.Nullable;
import org.springframework.core.task.TaskDecorator;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.concurrent.DelegatingSecurityContextRunnable;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;

/**
 * The users of per-user servers: the Authentication of Spring Security on the calling
 * thread.
 *
 * @author mcp-stdio authors
 */
final class SecurityUsers implements ServerUsers {

	private static final String OAUTH2 = "oauth2:";

	private final McpStdioUsers users;

	private final @Nullable Tokens tokens;

	SecurityUsers(McpStdioUsers users, @Nullable Tokens tokens) {
		this.users = users;
		this.tokens = tokens;
	}

	@Override
	public @Nullable ServerUser current() {
		Authentication user = SecurityContextHolder.getContext().getAuthentication();
		if (user == null || !user.isAuthenticated() || user instanceof AnonymousAuthenticationToken) {
			return null;
		}
		return new User(this.users.key(user), user, this.users, this.tokens);
	}

	/**
	 * Return the decorator of the application's executors' tasks that runs each with the
	 * security context of the thread that handed it over.
	 */
	static TaskDecorator taskDecorator() {
		return (task) -> DelegatingSecurityContextRunnable.create(task, null);
	}

	/** Gives a user's access token of an OAuth2 client registration. */
	interface Tokens {

		@Nullable String token(String registrationId, Authentication user);

	}

	/**
	 * One authenticated user: their key, and their Authentication for their values.
	 *
	 * @param key the key of their instances
	 * @param authentication who they are
	 * @param users gives the values of their {@code user-env} entries
	 * @param tokens gives their OAuth2 access tokens, {@code null} without an OAuth2
	 * client
	 */
	private record User(String key, Authentication authentication, McpStdioUsers users,
			@Nullable Tokens tokens) implements ServerUser {

		@Override
		public Map<String, String> env(String server, Map<String, String> userEnv) {
			Map<String, String> values = new LinkedHashMap<>();
			userEnv.forEach((variable, reference) -> {
				boolean oauth2 = reference.startsWith(OAUTH2);
				String value = !oauth2 ? this.users.value(server, reference, this.authentication)
						: (this.tokens != null)
								? this.tokens.token(reference.substring(OAUTH2.length()), this.authentication) : null;
				if (value == null) {
					String why = oauth2 ? "they have not authorized that OAuth2 client"
							: "no McpStdioUsers bean gives one";
					throw new McpStdioException(server,
							McpStdioException.describe(server)
									+ " cannot start an instance for the calling user: user-env " + variable + " ("
									+ reference + ") has no value for them (" + why + ")");
				}
				values.put(variable, value);
			});
			return values;
		}

		@Override
		public String toString() {
			// never the user's name
			return "User[" + this.key + "]";
		}

	}

}

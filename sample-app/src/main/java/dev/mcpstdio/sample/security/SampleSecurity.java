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

package dev.mcpstdio.sample.security;

import java.util.Map;

import dev.mcpstdio.autoconfigure.McpStdioUsers;
import org.jspecify.annotations.Nullable;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Two users, {@code alice} and {@code bob}, signed in with HTTP basic. Every page stays
 * open to anonymous callers too; only the per-user {@code account} server needs a
 * signed-in user: each gets an instance of their own, started with their own
 * {@code DEMO_ACCOUNT_TOKEN}.
 *
 * @author mcp-stdio authors
 */
@Configuration(proxyBeanMethods = false)
public class SampleSecurity {

	/** Each user's token for the 'account' server: in a real application, a vault's. */
	private static final Map<String, String> TOKENS = Map.of("alice", "demo-token-alice-4f1c9a", "bob",
			"demo-token-bob-77d2e0");

	@Bean
	SecurityFilterChain sampleSecurityFilterChain(HttpSecurity http) throws Exception {
		// a JSON API called with curl: HTTP basic, no session, no CSRF token
		return http.authorizeHttpRequests((requests) -> requests.anyRequest().permitAll())
			.httpBasic(Customizer.withDefaults())
			.csrf((csrf) -> csrf.disable())
			.build();
	}

	@Bean
	UserDetailsService sampleUsers() {
		return new InMemoryUserDetailsManager(
				User.withUsername("alice").password("{noop}alice-password").roles("USER").build(),
				User.withUsername("bob").password("{noop}bob-password").roles("USER").build());
	}

	/**
	 * Gives the {@code user-env} values of {@code demo:token}: the signed-in user's own
	 * token. The keys of the users' instances are the starter's (opaque hashes).
	 * @return the users
	 */
	@Bean
	McpStdioUsers mcpStdioUsers() {
		McpStdioUsers keys = McpStdioUsers.keyedHash();
		return new McpStdioUsers() {

			@Override
			public String key(Authentication user) {
				return keys.key(user);
			}

			@Override
			public @Nullable String value(String server, String reference, Authentication user) {
				return "demo:token".equals(reference) ? TOKENS.get(user.getName()) : null;
			}

		};
	}

}

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
package dev.mcpstdio.actuate;

import java.io.IOException;
import java.security.Principal;
import java.util.List;

import dev.mcpstdio.test.Fixtures;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@code show-values: when-authorized} with roles, over real HTTP: a servlet
 * filter authenticates callers the way container security would (a principal and its
 * roles on the request), which is what Boot's endpoint {@code SecurityContext} reads.
 *
 * @author mcp-stdio authors
 */
@ActuateHttpTest(classes = { ActuateTestApplication.class, McpServersEndpointWhenAuthorizedTests.Users.class })
class McpServersEndpointWhenAuthorizedTests {

	private static final Fixtures fixtures = new Fixtures();

	@Autowired
	private RestTestClient client;

	@DynamicPropertySource
	static void servers(DynamicPropertyRegistry registry) {
		registry.add("management.endpoint.mcpservers.access", () -> "unrestricted");
		registry.add("management.endpoint.mcpservers.show-values", () -> "when-authorized");
		registry.add("management.endpoint.mcpservers.roles", () -> "MCP_OPS");
		ActuateTestApplication.server(registry, fixtures, "wa-leaky", "leaks-secrets.sh");
	}

	@Test
	void anonymousCallerAndUserWithoutTheRoleGetValuesWithheld() {
		for (JsonNode leaky : List.of(read(null, null), read("alice", "DEVELOPER"))) {
			assertThat(leaky.get("command").asString()).isEqualTo("sh ******");
			assertThat(leaky.get("lastExit").get("stderrTail").values()).extracting(JsonNode::asString)
				.containsExactly("******", "******", "******");
		}
	}

	@Test
	void userInTheRoleGetsValuesSanitized() {
		JsonNode leaky = read("bob", "MCP_OPS");
		assertThat(leaky.get("command").asString()).isEqualTo("sh " + Fixtures.script("leaks-secrets.sh"));
		assertThat(leaky.get("lastExit").get("stderrTail").values()).extracting(JsonNode::asString)
			.containsExactly("boom: token=******", "connecting to postgres://bob:******@db:5432/app failed",
					"Authorization: Bearer ******");
	}

	@Test
	void failedActionQuotesStderrOnlyToAnAuthorizedUser() {
		JsonNode anonymous = ActuateTestApplication.readJson(start(null, null));
		assertThat(anonymous.get("message").asString())
			.isEqualTo("Could not start MCP server 'wa-leaky' (McpServerExitedException, exit code 3); its message"
					+ " is withheld, as arguments and stderr are (management.endpoint.mcpservers.show-values)");
		String authorized = start("bob", "MCP_OPS");
		assertThat(ActuateTestApplication.readJson(authorized).get("message").asString()).isEqualTo(
				"MCP server 'wa-leaky' process exited unexpectedly with exit code 3; stderr: boom: token=******\n"
						+ "connecting to postgres://bob:******@db:5432/app failed\nAuthorization: Bearer ******");
		assertThat(authorized).doesNotContain("abc123secret", "hunter2", "ghp_0123");
	}

	private JsonNode read(String user, String role) {
		String body = this.client.get()
			.uri("/actuator/mcpservers/wa-leaky")
			.headers((headers) -> authenticate(headers, user, role))
			.exchange()
			.expectStatus()
			.isOk()
			.returnResult(String.class)
			.getResponseBody();
		assertThat(body).doesNotContain("abc123secret", "hunter2", "ghp_0123");
		return ActuateTestApplication.readJson(body);
	}

	private String start(String user, String role) {
		return this.client.post()
			.uri("/actuator/mcpservers/wa-leaky")
			.headers((headers) -> authenticate(headers, user, role))
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"action\":\"start\"}")
			.exchange()
			.expectStatus()
			.isEqualTo(500)
			.returnResult(String.class)
			.getResponseBody();
	}

	private static void authenticate(org.springframework.http.HttpHeaders headers, String user, String role) {
		if (user != null) {
			headers.add(Users.USER, user);
			headers.add(Users.ROLE, role);
		}
	}

	/**
	 * Authenticates a request that names its user and role in headers, as container
	 * security would: a principal and its roles on the request.
	 */
	@TestConfiguration(proxyBeanMethods = false)
	static class Users {

		static final String USER = "X-Test-User";

		static final String ROLE = "X-Test-Role";

		@Bean
		Filter testUsers() {
			return new Filter() {

				@Override
				public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
						throws IOException, ServletException {
					HttpServletRequest http = (HttpServletRequest) request;
					String user = http.getHeader(USER);
					if (user == null) {
						chain.doFilter(request, response);
						return;
					}
					List<String> roles = List.of(http.getHeader(ROLE));
					chain.doFilter(new HttpServletRequestWrapper(http) {

						@Override
						public Principal getUserPrincipal() {
							return () -> user;
						}

						@Override
						public boolean isUserInRole(String role) {
							return roles.contains(role);
						}

					}, response);
				}

			};
		}

	}

}

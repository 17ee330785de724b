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
package dev.mcpstdio.sample.docs;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint security of docs/observability.md ("Securing the endpoint"), run as the
 * docs write it: an admin's POST to the endpoint is answered (not refused by CSRF
 * protection), an operator's is refused, both may read.
 *
 * @author mcp-stdio authors
 */
@SpringBootTest(classes = DocsActuatorSecurityTests.DocsApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.ai.mcp.client.enabled=false", "mcp.stdio.servers.demo.enabled=false",
				"mcp.stdio.servers.account.enabled=false", "management.endpoint.mcpservers.access=unrestricted",
				"management.endpoint.mcpservers.show-values=when-authorized",
				"management.endpoint.mcpservers.roles=OPS, MCP_ADMIN" })
@AutoConfigureRestTestClient
@DirtiesContext
class DocsActuatorSecurityTests {

	@Autowired
	RestTestClient client;

	@Test
	void anAdminsPostIsAnsweredAndAnOperatorsIsRefused() {
		post("admin", "admin-password").expectStatus().isOk();
		post("ops", "ops-password").expectStatus().isForbidden();
		this.client.get()
			.uri("/actuator/mcpservers/clock")
			.headers((headers) -> headers.setBasicAuth("ops", "ops-password"))
			.exchange()
			.expectStatus()
			.isOk();
		this.client.get().uri("/actuator/mcpservers/clock").exchange().expectStatus().isUnauthorized();
	}

	@Test
	void theDocsShowThisChain() throws Exception {
		String docs = Files.readString(Path.of("..", "docs", "observability.md"), StandardCharsets.UTF_8);
		assertThat(docs).contains(".csrf((csrf) -> csrf.ignoringRequestMatchers(EndpointRequest.toAnyEndpoint()));")
			.contains(".requestMatchers(EndpointRequest.to(\"mcpservers\").withHttpMethod(HttpMethod.POST))"
					+ ".hasRole(\"MCP_ADMIN\")");
	}

	private RestTestClient.ResponseSpec post(String user, String password) {
		return this.client.post()
			.uri("/actuator/mcpservers/clock")
			.headers((headers) -> headers.setBasicAuth(user, password))
			.contentType(MediaType.APPLICATION_JSON)
			.body("{\"action\":\"stop\"}")
			.exchange();
	}

	/**
	 * An application with the docs' chain and two users: not the sample's own security.
	 */
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class DocsApplication {

		// as docs/observability.md writes it
		@Bean
		SecurityFilterChain actuatorSecurity(HttpSecurity http) throws Exception {
			http.securityMatcher(EndpointRequest.toAnyEndpoint())
				.authorizeHttpRequests((requests) -> requests.requestMatchers(EndpointRequest.to("health"))
					.permitAll()
					.requestMatchers(EndpointRequest.to("mcpservers").withHttpMethod(HttpMethod.POST))
					.hasRole("MCP_ADMIN")
					.anyRequest()
					.hasRole("OPS"))
				.httpBasic(Customizer.withDefaults())
				// the actuator's callers are scripts and tools with HTTP Basic, not
				// browsers
				// with a session: without this line Spring Security's CSRF protection
				// answers 403 to every POST, an admin's too
				.csrf((csrf) -> csrf.ignoringRequestMatchers(EndpointRequest.toAnyEndpoint()));
			return http.build();
		}

		@Bean
		InMemoryUserDetailsManager users() {
			return new InMemoryUserDetailsManager(
					User.withUsername("ops").password("{noop}ops-password").roles("OPS").build(),
					User.withUsername("admin").password("{noop}admin-password").roles("OPS", "MCP_ADMIN").build());
		}

	}

}

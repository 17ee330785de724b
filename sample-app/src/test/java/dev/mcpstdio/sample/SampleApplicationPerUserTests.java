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

package dev.mcpstdio.sample;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The walk-through's two users over real HTTP: each signed-in user's call of the per-user
 * {@code account} server's tool is answered by an instance of their own, with their own
 * token; an anonymous caller has no such tool; the endpoint shows the instances without
 * the users' names or tokens.
 *
 * @author mcp-stdio authors
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureRestTestClient
@DirtiesContext
class SampleApplicationPerUserTests {

	@Autowired
	RestTestClient client;

	@Test
	void eachSignedInUserReachesTheirOwnInstance() {
		String alices = whoami("alice", "alice-password");
		String bobs = whoami("bob", "bob-password");
		assertThat(alices).contains("token ending in 4f1c9a");
		assertThat(bobs).contains("token ending in 77d2e0");
		assertThat(pid(alices)).isNotEqualTo(pid(bobs));
		// the same user again: the same instance
		assertThat(pid(whoami("alice", "alice-password"))).isEqualTo(pid(alices));
		// an anonymous caller is offered the tool, and its call says why it is refused
		String anonymous = this.client.post()
			.uri("/api/tools/whoami")
			.exchange()
			.expectStatus()
			.isEqualTo(502)
			.expectBody(String.class)
			.returnResult()
			.getResponseBody();
		assertThat(anonymous).contains("MCP server 'account' runs one instance per user", "no authenticated user")
			.doesNotContain("not running");
		String account = ok(this.client.get().uri("/actuator/mcpservers/account"));
		assertThat(account).contains("\"instances\":2", "\"pid\":" + pid(alices), "\"pid\":" + pid(bobs))
			.doesNotContain("alice", "bob", "4f1c9a", "77d2e0");
	}

	private String whoami(String user, String password) {
		return ok(
				this.client.post().uri("/api/tools/whoami").headers((headers) -> headers.setBasicAuth(user, password)));
	}

	private static String ok(RestTestClient.RequestHeadersSpec<?> request) {
		return request.exchange().expectStatus().isOk().expectBody(String.class).returnResult().getResponseBody();
	}

	private static String pid(String answer) {
		return answer.replaceAll("(?s).*pid (\\d+).*", "$1");
	}

}

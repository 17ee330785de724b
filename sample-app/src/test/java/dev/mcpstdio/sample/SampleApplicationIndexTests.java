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

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.MediaType;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.web.servlet.client.EntityExchangeResult;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code GET /} over real HTTP: the URLs worth trying, with the request's own host and
 * port, and each of them answers as the index says.
 *
 * @author mcp-stdio authors
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureRestTestClient
@DirtiesContext
class SampleApplicationIndexTests {

	private static final Pattern GET = Pattern.compile("^ *curl -s (http://\\S+)$", Pattern.MULTILINE);

	private static final Pattern POST = Pattern
		.compile("^ *curl -s -X POST (http://\\S+) -H 'Content-Type: application/json' -d '(.*)'$", Pattern.MULTILINE);

	@Autowired
	RestTestClient client;

	@LocalServerPort
	int port;

	@Test
	void theRootListsTheUrlsWorthTryingAndEachAnswers() {
		EntityExchangeResult<String> root = ok(this.client.get().uri("/"));
		assertThat(root.getResponseHeaders().getContentType()).as("the index's content type")
			.matches((type) -> type != null && type.isCompatibleWith(MediaType.TEXT_PLAIN));
		String index = root.getResponseBody();
		String base = "http://localhost:" + this.port;
		assertThat(index).contains("demo", "clock");
		List<String> urls = new ArrayList<>();
		for (Matcher get = GET.matcher(index); get.find();) {
			urls.add(get.group(1));
		}
		assertThat(urls).containsExactly(base + "/api/tools", base + "/actuator/mcpservers", base + "/actuator/health",
				base + "/actuator/prometheus");
		for (String url : urls) {
			ok(this.client.get().uri(url));
		}
		Matcher post = POST.matcher(index);
		assertThat(post.find()).as("a tool call in %s", index).isTrue();
		assertThat(post.group(1)).isEqualTo(base + "/api/tools/echo");
		String echo = ok(
				this.client.post().uri(post.group(1)).contentType(MediaType.APPLICATION_JSON).body(post.group(2)))
			.getResponseBody();
		assertThat(echo).contains("hello");
	}

	private static EntityExchangeResult<String> ok(RestTestClient.RequestHeadersSpec<?> request) {
		return request.exchange().expectStatus().isOk().expectBody(String.class).returnResult();
	}

}

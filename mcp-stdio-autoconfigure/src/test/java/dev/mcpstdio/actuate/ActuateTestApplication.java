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

import java.util.function.BiConsumer;

import dev.mcpstdio.test.Fixtures;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.web.servlet.client.RestTestClient;

/**
 * A web application with actuator for the HTTP tests of this package, and helpers to
 * configure fixture servers and read the responses.
 *
 * @author mcp-stdio authors
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class ActuateTestApplication {

	private static final JsonMapper json = JsonMapper.shared();

	/**
	 * Configure a server that runs a fixture script with {@code sh}, marked for a test.
	 * @param registry the registry
	 * @param fixtures the test's fixtures
	 * @param name the server name
	 * @param script the fixture script
	 * @param extraArgs more arguments after the script
	 * @return a callback to add more properties of that server
	 */
	static BiConsumer<String, String> server(DynamicPropertyRegistry registry, Fixtures fixtures, String name,
			String script, String... extraArgs) {
		String prefix = "mcp.stdio.servers." + name + ".";
		registry.add(prefix + "command", () -> "sh");
		registry.add(prefix + "args[0]", () -> Fixtures.script(script));
		for (int i = 0; i < extraArgs.length; i++) {
			String arg = extraArgs[i];
			registry.add(prefix + "args[" + (i + 1) + "]", () -> arg);
		}
		registry.add(prefix + "env." + Fixtures.MARKER, fixtures::id);
		return (key, value) -> registry.add(prefix + key, () -> value);
	}

	static JsonNode getJson(RestTestClient client, String uri) {
		String body = client.get()
			.uri(uri)
			.exchange()
			.expectStatus()
			.isOk()
			.returnResult(String.class)
			.getResponseBody();
		return json.readTree(body);
	}

	static JsonNode readJson(String body) {
		return json.readTree(body);
	}

}

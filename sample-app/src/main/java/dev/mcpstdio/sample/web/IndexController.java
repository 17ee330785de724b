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

package dev.mcpstdio.sample.web;

import java.util.stream.Collectors;

import dev.mcpstdio.lifecycle.McpStdioServers;

import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;

/**
 * {@code GET /}: what to try, as {@code curl} commands with this request's own host and
 * port: the tools, a tool call, the servers' endpoint, health and the metrics.
 *
 * @author mcp-stdio authors
 */
@RestController
class IndexController {

	private final McpStdioServers servers;

	IndexController(McpStdioServers servers) {
		this.servers = servers;
	}

	@GetMapping(path = "/", produces = MediaType.TEXT_PLAIN_VALUE)
	String index() {
		String base = ServletUriComponentsBuilder.fromCurrentContextPath().toUriString();
		String servers = this.servers.list()
			.stream()
			.map((server) -> server.name() + " " + server.state())
			.collect(Collectors.joining(", "));
		return """
				mcp-stdio sample app: a Spring AI application whose MCP servers mcp-stdio runs (%2$s).

				Try:
				  curl -s %1$s/api/tools
				      every tool of the servers that run, through Spring AI's tool callbacks
				  curl -s -X POST %1$s/api/tools/echo -H 'Content-Type: application/json' -d '{"text":"hello"}'
				      call a tool: POST /api/tools/{name}, its arguments as JSON
				  curl -s -u alice:alice-password -X POST %1$s/api/tools/whoami
				  curl -s -u bob:bob-password -X POST %1$s/api/tools/whoami
				      the per-user 'account' server: each signed-in user reaches an instance of their own,
				      started with their own token (another pid, another token); anonymous: no such tool
				  curl -s %1$s/actuator/mcpservers
				      the servers: state, pid, live processes, restarts, last exit (/actuator/mcpservers/{name}: one)
				  curl -s %1$s/actuator/health
				      health, with each server in its details
				  curl -s %1$s/actuator/prometheus
				      the metrics (grep '^mcp_' for the servers' and their requests')

				The walk-through: README.md, "Sample app walk-through".
				""".formatted(base, servers);
	}

}

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

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Lists and calls every MCP tool through Spring AI's tool callbacks, as a
 * {@code ChatClient} would. A tool that fails answers 502 with the server's message (a
 * per-user server's tool called without a signed-in user says so); a tool that is not
 * offered (its server is not running, or no instance of a per-user server has listed its
 * tools yet) 404.
 *
 * @author mcp-stdio authors
 */
@RestController
@RequestMapping("/api/tools")
class ToolsController {

	private final ObjectProvider<ToolCallbackProvider> providers;

	ToolsController(ObjectProvider<ToolCallbackProvider> providers) {
		this.providers = providers;
	}

	@GetMapping(produces = MediaType.APPLICATION_JSON_VALUE)
	List<Map<String, String>> list() {
		return callbacks().stream().map((callback) -> {
			Map<String, String> tool = new LinkedHashMap<>();
			tool.put("name", callback.getToolDefinition().name());
			tool.put("description", callback.getToolDefinition().description());
			tool.put("inputSchema", callback.getToolDefinition().inputSchema());
			return tool;
		}).toList();
	}

	@ExceptionHandler(RuntimeException.class)
	ResponseEntity<Map<String, Object>> failed(RuntimeException ex) {
		// what the servers said, not a generic 500
		return ResponseEntity.status(HttpStatus.BAD_GATEWAY).body(Map.of("error", String.valueOf(ex.getMessage())));
	}

	@PostMapping(path = "/{name}", produces = MediaType.APPLICATION_JSON_VALUE)
	ResponseEntity<Map<String, Object>> call(@PathVariable String name,
			@RequestBody(required = false) String arguments) {
		ToolCallback callback = callbacks().stream()
			.filter((candidate) -> candidate.getToolDefinition().name().equals(name))
			.findFirst()
			.orElse(null);
		if (callback == null) {
			return ResponseEntity.status(HttpStatus.NOT_FOUND)
				.body(Map.of("error", "No tool named '" + name + "' is offered: the tools of a server that is not "
						+ "running are left out, and a per-user server's are known once one of its instances listed "
						+ "them (see /actuator/mcpservers)"));
		}
		try {
			String result = callback.call((arguments != null && !arguments.isBlank()) ? arguments : "{}");
			return ResponseEntity.ok(Map.of("tool", name, "result", result));
		}
		catch (RuntimeException ex) {
			// a server that died is named with its exit code and stderr
			return ResponseEntity.status(HttpStatus.BAD_GATEWAY)
				.body(Map.of("tool", name, "error", String.valueOf(ex.getMessage())));
		}
	}

	private List<ToolCallback> callbacks() {
		return this.providers.orderedStream()
			.flatMap((provider) -> Arrays.stream(provider.getToolCallbacks()))
			.toList();
	}

}

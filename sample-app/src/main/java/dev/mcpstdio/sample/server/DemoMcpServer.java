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

package dev.mcpstdio.sample.server;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A small MCP server over stdio, bundled with the sample and started with the JDK that
 * runs it. {@code demo} offers {@code echo}, {@code spawn_children} (starts {@code sleep}
 * children, so that the server has a process tree), {@code server_info} and {@code fail}
 * (answers with a tool error, to show failures in the metrics); {@code clock} offers
 * {@code now} and {@code uptime}; {@code account} (one instance per user) offers
 * {@code whoami}. It exits when its stdin closes, as a well-behaved stdio server does.
 *
 * @author mcp-stdio authors
 */
public final class DemoMcpServer {

	private static final JsonMapper json = JsonMapper.shared();

	private static final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);

	private static final Instant started = Instant.now();

	/** The per-user 'account' server's token: each user's instance has their own. */
	private static final String token = String.valueOf(System.getenv("DEMO_ACCOUNT_TOKEN"));

	private DemoMcpServer() {
	}

	public static void main(String[] args) throws Exception {
		String mode = (args.length > 0) ? args[0] : "demo";
		System.err.println(mode + " MCP server ready (pid " + ProcessHandle.current().pid() + ")");
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		String line;
		while ((line = in.readLine()) != null) {
			JsonNode request = json.readTree(line);
			if (request.has("id") && request.has("method")) {
				answer(mode, request);
			}
		}
		System.err.println(mode + " MCP server: stdin closed, exiting");
		System.exit(0);
	}

	private static void answer(String mode, JsonNode request) {
		JsonNode params = request.path("params");
		ObjectNode response = json.createObjectNode();
		response.put("jsonrpc", "2.0");
		response.set("id", request.get("id"));
		try {
			Object result = switch (request.path("method").asString()) {
				case "initialize" ->
					Map.of("protocolVersion", params.path("protocolVersion").asString("2025-06-18"), "capabilities",
							Map.of("tools", Map.of()), "serverInfo", Map.of("name", mode, "version", "1.0"));
				case "tools/list" -> Map.of("tools", tools(mode));
				case "tools/call" -> call(params.path("name").asString(), params.path("arguments"));
				case "ping" -> Map.of();
				default -> throw new IllegalArgumentException("Method not found: " + request.path("method"));
			};
			response.set("result", json.valueToTree(result));
		}
		catch (RuntimeException ex) {
			response.set("error", json.valueToTree(Map.of("code", -32601, "message", String.valueOf(ex.getMessage()))));
		}
		out.println(json.writeValueAsString(response));
	}

	private static List<Map<String, Object>> tools(String mode) {
		if (mode.equals("dice")) {
			return List.of(tool("roll", "Rolls a six-sided die", Map.of()));
		}
		if (mode.equals("account")) {
			return List.of(tool("whoami",
					"Returns this instance's pid and the last characters of the token it was started with", Map.of()));
		}
		if (mode.equals("clock")) {
			return List.of(tool("now", "Returns the current time (UTC, ISO-8601)", Map.of()),
					tool("uptime", "Returns how long this server has been running", Map.of()));
		}
		return List.of(tool("echo", "Echoes the given text", Map.of("text", "string")),
				tool("spawn_children", "Starts `count` child processes (sleep) and returns their pids",
						Map.of("count", "integer")),
				tool("server_info", "Returns this server's pid and its live child processes", Map.of()), tool("fail",
						"Always fails: answers with a tool error (isError), as a tool whose work failed", Map.of()));
	}

	private static Map<String, Object> call(String name, JsonNode arguments) {
		if (name.equals("fail")) {
			// a tool's own failure is a result, not a JSON-RPC error (MCP's tools/call)
			return Map.of("content", List.of(Map.of("type", "text", "text", "the demo tool failed, as asked")),
					"isError", true);
		}
		String text = switch (name) {
			case "echo" -> arguments.path("text").asString("");
			case "spawn_children" -> spawnChildren(Math.max(1, Math.min(10, arguments.path("count").asInt(2))));
			case "server_info" -> "pid " + ProcessHandle.current().pid() + ", children "
					+ ProcessHandle.current().children().map(ProcessHandle::pid).toList();
			case "now" -> Instant.now().toString();
			case "uptime" -> Duration.between(started, Instant.now()).toString();
			case "roll" -> Integer.toString(ThreadLocalRandom.current().nextInt(1, 7));
			case "whoami" -> "pid " + ProcessHandle.current().pid() + ", token ending in "
					+ token.substring(Math.max(0, token.length() - 6));
			default -> throw new IllegalArgumentException("Unknown tool: " + name);
		};
		return Map.of("content", List.of(Map.of("type", "text", "text", text)));
	}

	private static String spawnChildren(int count) {
		List<Long> pids = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			try {
				// children that would outlive a careless host: mcp-stdio ends them with
				// the server
				pids.add(new ProcessBuilder("sleep", "3600").start().pid());
			}
			catch (Exception ex) {
				throw new IllegalStateException("Could not start a child: " + ex.getMessage(), ex);
			}
		}
		return "started children " + pids;
	}

	private static Map<String, Object> tool(String name, String description, Map<String, String> properties) {
		Map<String, Object> schema = new LinkedHashMap<>();
		properties.forEach((property, type) -> schema.put(property, Map.of("type", type)));
		return Map.of("name", name, "description", description, "inputSchema",
				Map.of("type", "object", "properties", schema));
	}

}

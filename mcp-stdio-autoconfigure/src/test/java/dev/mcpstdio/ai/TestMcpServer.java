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

package dev.mcpstdio.ai;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A small real MCP server over stdio for the tests, started with the JDK that runs them.
 * Tools: {@code echo}, {@code pid}, {@code children} (starts {@code sleep} children and
 * reports their pids), {@code slow} (answers after {@code millis}) and {@code crash}
 * (writes {@code stderr} to stderr and exits 3 without answering). With
 * {@code --exit-now <code>} it writes to stderr and exits before reading anything.
 *
 * @author mcp-stdio authors
 */
public final class TestMcpServer {

	private static final JsonMapper json = JsonMapper.shared();

	private static final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);

	private TestMcpServer() {
	}

	public static void main(String[] args) throws Exception {
		if (args.length == 2 && args[0].equals("--exit-now")) {
			System.err.println("boom: missing dependency");
			System.exit(Integer.parseInt(args[1]));
		}
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		String line;
		while ((line = in.readLine()) != null) {
			JsonNode message = json.readTree(line);
			if (!message.has("id") || !message.has("method")) {
				continue;
			}
			Thread thread = new Thread(() -> answer(message));
			thread.setDaemon(true);
			thread.start();
		}
		System.exit(0);
	}

	private static void answer(JsonNode request) {
		JsonNode params = request.path("params");
		Object result = switch (request.path("method").asString()) {
			case "initialize" -> Map.of("protocolVersion", params.path("protocolVersion").asString("2025-06-18"),
					"capabilities", Map.of("tools", Map.of()), "serverInfo", Map.of("name", "test", "version", "1.0"));
			case "tools/list" -> Map.of("tools",
					List.of(tool("echo", "Echoes its text", "text", "string"),
							tool("pid", "Returns the server's pid", null, null),
							tool("children", "Starts sleep children and returns their pids", "count", "integer"),
							tool("slow", "Answers after millis", "millis", "integer")));
			case "tools/call" -> call(params.path("name").asString(), params.path("arguments"));
			default -> Map.of();
		};
		ObjectNode response = json.createObjectNode();
		response.put("jsonrpc", "2.0");
		response.set("id", request.get("id"));
		response.set("result", json.valueToTree(result));
		synchronized (out) {
			out.println(json.writeValueAsString(response));
		}
	}

	private static Map<String, Object> call(String name, JsonNode arguments) {
		String text = switch (name) {
			case "echo" -> arguments.path("text").asString("");
			case "pid" -> Long.toString(ProcessHandle.current().pid());
			case "children" -> {
				List<Long> pids = new ArrayList<>();
				for (int i = 0; i < arguments.path("count").asInt(1); i++) {
					try {
						pids.add(new ProcessBuilder("sleep", "300").start().pid());
					}
					catch (Exception ex) {
						throw new IllegalStateException(ex);
					}
				}
				yield pids.toString();
			}
			case "crash" -> {
				// writes its argument to stderr and ends without an answer
				System.err.println(arguments.path("stderr").asString(""));
				System.err.flush();
				Runtime.getRuntime().halt(3);
				yield "unreachable";
			}
			case "slow" -> {
				try {
					Thread.sleep(arguments.path("millis").asLong(1000));
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				yield "slept";
			}
			default -> "unknown tool " + name;
		};
		return Map.of("content", List.of(Map.of("type", "text", "text", text)));
	}

	private static Map<String, Object> tool(String name, String description, String property, String type) {
		Map<String, Object> properties = (property != null) ? Map.of(property, Map.of("type", type)) : Map.of();
		return Map.of("name", name, "description", description, "inputSchema",
				Map.of("type", "object", "properties", properties));
	}

}

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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A tiny stdio MCP server bundled with the sample, started with the same JDK as the app:
 * it answers {@code initialize}, lists one {@code echo} tool and calls it.
 *
 * @author mcp-stdio authors
 */
public final class DemoMcpServer {

	private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*(\"[^\"]*\"|\\d+)");

	private static final Pattern METHOD = Pattern.compile("\"method\"\\s*:\\s*\"([^\"]*)\"");

	private static final Pattern TEXT = Pattern.compile("\"text\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");

	private DemoMcpServer() {
	}

	public static void main(String[] args) throws Exception {
		PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
		System.err.println("demo MCP server ready");
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		String line;
		while ((line = in.readLine()) != null) {
			Matcher id = ID.matcher(line);
			Matcher method = METHOD.matcher(line);
			if (!id.find() || !method.find()) {
				continue;
			}
			String result = switch (method.group(1)) {
				case "initialize" -> "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},"
						+ "\"serverInfo\":{\"name\":\"demo\",\"version\":\"1.0\"}}";
				case "tools/list" -> "{\"tools\":[{\"name\":\"echo\",\"description\":\"Echoes its text\","
						+ "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}}]}";
				case "tools/call" -> {
					Matcher text = TEXT.matcher(line);
					String echoed = text.find() ? text.group(1) : "";
					yield "{\"content\":[{\"type\":\"text\",\"text\":\"" + echoed + "\"}]}";
				}
				default -> "{}";
			};
			out.println("{\"jsonrpc\":\"2.0\",\"id\":" + id.group(1) + ",\"result\":" + result + "}");
		}
		System.err.println("demo MCP server: stdin closed, exiting");
	}

}

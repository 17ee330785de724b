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

import java.util.List;
import java.util.Map;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.TextContent;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A Spring AI web application as users have it, run in a forked JVM: every
 * auto-configuration on the class path, its MCP servers configured for Spring AI's stdio
 * transport only. Once started, it asks the server {@code demo} for two child processes
 * and prints {@value #READY}, its port and the children's pids.
 *
 * @author mcp-stdio authors
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class AdoptingApplication {

	/** The line printed once ready. */
	public static final String READY = "ADOPTING-READY";

	public static void main(String[] args) {
		ConfigurableApplicationContext context = SpringApplication.run(AdoptingApplication.class, args);
		int port = ((WebServerApplicationContext) context).getWebServer().getPort();
		@SuppressWarnings("unchecked")
		List<McpSyncClient> clients = context.getBean("mcpSyncClients", List.class);
		McpSyncClient demo = clients.stream()
			.filter((client) -> client.getClientInfo().name().endsWith(" - demo"))
			.findFirst()
			.orElseThrow();
		String children = ((TextContent) demo
			.callTool(CallToolRequest.builder("children").arguments(Map.of("count", 2)).build())
			.content()
			.get(0)).text();
		System.out.println(READY + " " + port + " " + children);
		System.out.flush();
	}

}

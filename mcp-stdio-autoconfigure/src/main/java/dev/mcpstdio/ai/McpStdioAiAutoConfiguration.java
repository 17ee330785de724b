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

import java.util.ArrayList;
import java.util.List;

import dev.mcpstdio.autoconfigure.McpStdioAutoConfiguration;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.mcp.client.common.autoconfigure.NamedClientMcpTransport;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration that makes every enabled mcp-stdio server a Spring AI MCP client
 * transport: Spring AI builds its clients, tool callbacks included, over them. Servers
 * configured for Spring AI's own stdio transport are among them when adopted (see
 * {@code mcp.stdio.adopt-spring-ai-stdio}): same name, same client.
 *
 * @author mcp-stdio authors
 */
@AutoConfiguration(after = McpStdioAutoConfiguration.class,
		beforeName = "org.springframework.ai.mcp.client.common.autoconfigure.McpClientAutoConfiguration")
@ConditionalOnClass({ NamedClientMcpTransport.class, McpClientTransport.class, JacksonMcpJsonMapper.class })
@ConditionalOnProperty(prefix = "spring.ai.mcp.client", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnBean(McpStdioServers.class)
public class McpStdioAiAutoConfiguration {

	/**
	 * One transport per enabled server, named after it; a bean of exactly this type is
	 * what Spring AI collects. Creating it starts every server process in parallel, so
	 * that Spring AI's one-by-one handshakes wait for the slowest server only.
	 * @param servers the servers, those adopted from Spring AI's stdio configuration
	 * included
	 * @return the transports
	 */
	@Bean
	List<NamedClientMcpTransport> mcpStdioTransports(McpStdioServers servers) {
		McpJsonMapper jsonMapper = new JacksonMcpJsonMapper(JsonMapper.shared());
		List<NamedClientMcpTransport> transports = new ArrayList<>();
		for (McpStdioServer server : servers.list()) {
			if (!server.definition().enabled()) {
				continue;
			}
			// Spring AI's client performs the handshake
			server.setSelfInitialize(false);
			transports.add(new NamedClientMcpTransport(server.name(), new McpStdioClientTransport(server, jsonMapper)));
		}
		servers.startAllInBackground();
		return transports;
	}

}

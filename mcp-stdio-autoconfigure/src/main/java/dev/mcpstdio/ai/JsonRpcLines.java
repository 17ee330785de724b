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

import java.io.IOException;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.StdioServerSpec;
import dev.mcpstdio.core.io.SecretSanitizer;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Reads and writes the JSON-RPC lines of one server for its MCP client. A line that is
 * not JSON-RPC is skipped with a WARN that quotes it bounded and with its secrets masked.
 *
 * @author mcp-stdio authors
 */
final class JsonRpcLines {

	// the transport's category: what users configure for it covers its lines too
	private static final Log logger = LogFactory.getLog(McpStdioClientTransport.class);

	private final String serverName;

	private final StdioServerSpec spec;

	private final McpJsonMapper jsonMapper;

	JsonRpcLines(String serverName, StdioServerSpec spec, McpJsonMapper jsonMapper) {
		this.serverName = serverName;
		this.spec = spec;
		this.jsonMapper = jsonMapper;
	}

	String write(JSONRPCMessage message) {
		try {
			return this.jsonMapper.writeValueAsString(message);
		}
		catch (IOException ex) {
			throw new McpStdioException(this.serverName,
					"Could not serialize a message for MCP server '" + this.serverName + "': " + ex.getMessage(), ex);
		}
	}

	@Nullable JSONRPCMessage read(String line) {
		try {
			return McpSchema.deserializeJsonRpcMessage(this.jsonMapper, line);
		}
		catch (Exception ex) {
			// Invalid JSON, a message of no known kind, a response with a null id
			logger.warn("Skipping a message from MCP server '" + this.serverName + "' that is not JSON-RPC ("
					+ SecretSanitizer.quote(String.valueOf(ex.getMessage()), 200, this.spec.secrets()) + "): "
					+ SecretSanitizer.quote(line, 200, this.spec.secrets()));
			return null;
		}
	}

}

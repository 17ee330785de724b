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
import java.util.Map;
import java.util.function.Consumer;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.secrets.SecretSanitizer;
import dev.mcpstdio.core.secrets.SecretValues;
import dev.mcpstdio.core.server.io.JsonRpcLine;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCResponse.JSONRPCError;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.log.LogMessage;

/**
 * The reading of one server's lines into the client's JSON-RPC messages: a line that is
 * not JSON-RPC is skipped with a warning, an answer to a request of the client's that
 * cannot be read fails that request.
 *
 * @author mcp-stdio authors
 */
final class ServerLines {

	private static final Log logger = LogFactory.getLog(McpStdioClientTransport.class);

	private final String serverName;

	private final McpJsonMapper jsonMapper;

	private final SecretValues secrets;

	private final ServerAnswers answers;

	ServerLines(String serverName, McpJsonMapper jsonMapper, SecretValues secrets, ServerAnswers answers) {
		this.serverName = serverName;
		this.jsonMapper = jsonMapper;
		this.secrets = secrets;
		this.answers = answers;
	}

	/**
	 * Read a line of the server's: one that answers a request the client waits for but
	 * cannot be read (a number too long, a result of no known shape) fails that request
	 * at once, rather than leaving it to the client's timeout.
	 * @param line the line
	 * @param method the method of the client's request it answers, or {@code null}
	 * @param deliver where the failure of that request goes
	 * @return the message, or {@code null} when it was skipped or failed its request
	 */
	@Nullable JSONRPCMessage read(JsonRpcLine line, @Nullable String method, Consumer<JSONRPCMessage> deliver) {
		if (this.answers.passesAsWritten(line, method)) {
			JSONRPCMessage answer = readToolAnswer(line.text());
			if (answer != null) {
				return answer;
			}
		}
		try {
			return readOrThrow(line.text(), line.isResponse());
		}
		catch (Exception ex) {
			String id = line.isResponse() ? line.id() : null;
			if (id == null || method == null) {
				skipped(line.text(), ex);
				return null;
			}
			String message = McpStdioException.describe(this.serverName) + " sent an answer that could not be read: "
					+ SecretSanitizer.quote(String.valueOf(ex.getMessage()), 300, this.secrets);
			logger.warn(message);
			deliver.accept(JSONRPCResponse.error(id, new JSONRPCError(McpSchema.ErrorCodes.INTERNAL_ERROR, message,
					Map.of(McpStdioClientTransport.OWN_ERROR_SERVER, this.serverName))));
			return null;
		}
	}

	/** Read a line of the server's, skipping one that is not JSON-RPC with a WARN. */
	@Nullable JSONRPCMessage read(String line, boolean response) {
		try {
			return readOrThrow(line, response);
		}
		catch (Exception ex) {
			skipped(line, ex);
			return null;
		}
	}

	/**
	 * Read an answer to {@code tools/call} at once into the client's type.
	 * @return the answer, or {@code null} when the type does not take it
	 */
	private @Nullable JSONRPCMessage readToolAnswer(String line) {
		try {
			McpStdioClientTransport.ToolAnswer answer = this.jsonMapper.readValue(line,
					McpStdioClientTransport.ToolAnswer.class);
			return new JSONRPCResponse(answer.jsonrpc(), answer.id(), answer.result(), answer.error());
		}
		catch (Exception ex) {
			// a result the client's type does not take fails where the client reads it
			return null;
		}
	}

	private JSONRPCMessage readOrThrow(String line, boolean response) throws IOException {
		// A response, the most frequent, in one pass: the SDK reads a map, then
		// converts it
		return response ? this.jsonMapper.readValue(line, JSONRPCResponse.class)
				: McpSchema.deserializeJsonRpcMessage(this.jsonMapper, line);
	}

	private void skipped(String line, Exception ex) {
		// Invalid JSON, a message of no known kind, a response with a null id
		logger.warn(LogMessage.format("Skipping a message from %s that is not JSON-RPC (%s): %s",
				McpStdioException.describe(this.serverName),
				SecretSanitizer.quote(String.valueOf(ex.getMessage()), 200, this.secrets),
				SecretSanitizer.quote(line, 200, this.secrets)));
	}

}

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

package dev.mcpstdio.core.server.io;

import java.io.IOException;

import org.jspecify.annotations.Nullable;

/**
 * Where the reader of a server's stdout hands what it read: its lines, a line too long,
 * and the end of the stream.
 *
 * @author mcp-stdio authors
 */
public interface LineSink {

	/**
	 * Take one JSON-RPC message, on the reading thread.
	 * @param line the message
	 */
	void line(JsonRpcLine line);

	/**
	 * The server broke the protocol in a way that ends it, such as a message longer than
	 * its limit.
	 * @param reason what it did, completing "it ..."
	 */
	void failed(String reason);

	/**
	 * The stream ended, or a read of it failed.
	 * @param failure the failure, or {@code null} at the end of the stream
	 */
	void ended(@Nullable IOException failure);

}

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

/**
 * Auto-configuration of mcp-stdio: one {@link dev.mcpstdio.lifecycle.McpStdioServer} bean
 * per configured server, its host, its features, and the failure analysis of
 * configuration errors. The {@code mcp.stdio} properties, and the pipeline that reads
 * them, are in {@code dev.mcpstdio.autoconfigure.config}.
 */
@NullMarked
package dev.mcpstdio.autoconfigure;

import org.jspecify.annotations.NullMarked;

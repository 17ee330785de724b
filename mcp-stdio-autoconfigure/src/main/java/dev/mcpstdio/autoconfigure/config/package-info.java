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
 * The configuration of mcp-stdio's servers as one pipeline, each step one class with one
 * job, all reporting to one {@link dev.mcpstdio.autoconfigure.config.Problems}: bind
 * {@code mcp.stdio} once, gather the servers of its sources, check them, and map each to
 * its definition. {@link dev.mcpstdio.autoconfigure.config.ConfiguredServers} is the
 * result. Never imports {@code dev.mcpstdio.autoconfigure} or its reloads.
 */
@NullMarked
package dev.mcpstdio.autoconfigure.config;

import org.jspecify.annotations.NullMarked;

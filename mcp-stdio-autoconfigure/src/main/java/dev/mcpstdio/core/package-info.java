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
 * The Spring-free heart of mcp-stdio, and its façade: the host that starts an
 * application's server processes, counts them and sweeps what dead JVMs left. The process
 * itself is in {@code core.server}, its pipes in {@code core.server.io}, the machine's
 * processes in {@code core.tree}. Nothing in the core imports Spring.
 */
@NullMarked
package dev.mcpstdio.core;

import org.jspecify.annotations.NullMarked;

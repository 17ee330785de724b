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
package dev.mcpstdio.core.server;

import dev.mcpstdio.core.tree.ProcessScanner;
import dev.mcpstdio.core.tree.TreeTerminator;

/**
 * The machine's process trees as a host's server processes see them: the snapshots they
 * are looked up in, what ends them, and the count of what they run.
 *
 * @param scanner the snapshots of the machine's processes
 * @param terminator what ends a process tree
 * @param census the count of the host's processes
 * @author mcp-stdio authors
 */
record ProcessTrees(ProcessScanner scanner, TreeTerminator terminator, ProcessCensus census) {

}

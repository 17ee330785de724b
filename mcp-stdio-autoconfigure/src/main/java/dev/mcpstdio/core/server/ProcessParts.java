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

import dev.mcpstdio.core.containment.OrphanGuard;
import dev.mcpstdio.core.server.io.ServerPipes;

/**
 * What each server process is handed, shared by the processes of one host: a process
 * reads these and never its host.
 *
 * @param threads the threads that run what may block, and the timer
 * @param exits the watcher of exits
 * @param cohort the stops under way
 * @param trees the machine's process trees: snapshots, the terminator, the census
 * @param pipes what opens each process's pipes and runs the threads they share
 * @param guard the orphan guard, which forgets an ended root
 * @author mcp-stdio authors
 */
record ProcessParts(ProcessThreads threads, ExitWatcher exits, StopCohort cohort, ProcessTrees trees, ServerPipes pipes,
		OrphanGuard guard) {

}

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

import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

import dev.mcpstdio.core.containment.OrphanGuard;
import dev.mcpstdio.core.server.io.StderrPump;
import dev.mcpstdio.core.tree.ProcessScanner;
import dev.mcpstdio.core.tree.TreeTerminator;

/**
 * What each server process is handed, shared by the processes of one host: a process
 * reads these and never its host.
 *
 * @param tasks the threads that run exits, stops and other tasks that may block
 * @param scheduler the one thread of timed tasks (a write's timeout)
 * @param exits the watcher of exits
 * @param cohort the stops under way
 * @param terminator what ends a process tree
 * @param scanner the snapshots of the machine's processes
 * @param stderr the pump of every server's stderr
 * @param guard the orphan guard, which forgets an ended root
 * @param census the count of the host's processes
 * @author mcp-stdio authors
 */
record ProcessParts(Executor tasks, ScheduledExecutorService scheduler, ExitWatcher exits, StopCohort cohort,
		TreeTerminator terminator, ProcessScanner scanner, StderrPump stderr, OrphanGuard guard, ProcessCensus census) {

}

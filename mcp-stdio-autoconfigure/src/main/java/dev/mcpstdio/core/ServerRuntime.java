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

package dev.mcpstdio.core;

import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

import dev.mcpstdio.core.containment.OrphanGuard;
import dev.mcpstdio.core.io.StderrLog;
import dev.mcpstdio.core.io.StderrPoller;
import dev.mcpstdio.core.process.ProcessScanner;
import dev.mcpstdio.core.process.TreeTerminator;

/**
 * What a running server process shares with the other servers of its host: the threads
 * that observe and end it, the reader and terminator of its processes, the orphan guard,
 * and where its stderr goes.
 *
 * @param scanner reads the processes
 * @param terminator ends process trees
 * @param guard the orphan guard
 * @param census counts the processes of servers
 * @param exits notices exits
 * @param stderrLog logs stderr lines, rate-limited
 * @param stderrPoller reads stderr streams
 * @param tasks runs work that may block
 * @param scheduler runs timed work that does not block
 * @param shutdownCohort the stops of an application's shutdown, which run together
 * @author mcp-stdio authors
 */
record ServerRuntime(ProcessScanner scanner, TreeTerminator terminator, OrphanGuard guard, ProcessCensus census,
		ExitWatcher exits, StderrLog stderrLog, StderrPoller stderrPoller, Executor tasks,
		ScheduledExecutorService scheduler, StopCohort shutdownCohort) {

}

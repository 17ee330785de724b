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

/**
 * The threads a host's processes share: those that run what may block, and the one that
 * runs timed checks.
 *
 * @param tasks the threads that run exits, stops and other tasks that may block
 * @param timer the one thread of timed tasks (a request's client timeout)
 * @author mcp-stdio authors
 */
record ProcessThreads(Executor tasks, ScheduledExecutorService timer) {

}

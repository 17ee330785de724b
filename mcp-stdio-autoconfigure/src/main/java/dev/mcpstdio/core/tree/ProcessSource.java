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

package dev.mcpstdio.core.tree;

import dev.mcpstdio.core.tree.ProcessTable.Proc;
import org.jspecify.annotations.Nullable;

/**
 * Where the processes to end are read from and how they are signalled.
 *
 * @author mcp-stdio authors
 */
interface ProcessSource {

	/**
	 * Read the live processes: a snapshot whose reading began at or after the given time,
	 * which may be one another caller asked for.
	 * @param freshSince a {@link System#nanoTime()} not later than now
	 * @return a snapshot begun at or after {@code freshSince}
	 */
	ProcessTable scan(long freshSince);

	/**
	 * Read the processes whose environment read empty in a snapshot again, as one does
	 * while it execs.
	 * @param table the snapshot
	 * @return a snapshot with those processes read again
	 */
	ProcessTable reread(ProcessTable table);

	/**
	 * Read one process and its ancestors afresh, nothing cached: what proves, right
	 * before a signal, whether the process that has the pid now is a member.
	 * @param pid the process
	 * @return a snapshot of the process and its parent chain, empty when it is gone
	 */
	ProcessTable lineage(long pid);

	/**
	 * Take hold of the process that has a pid now, so that a signal reaches it or nobody,
	 * never a later process with its pid: a pidfd, where the kernel has them.
	 * @param pid the process
	 * @return the hold, to be closed by the caller, or {@code null} when the process is
	 * gone or this source cannot hold processes
	 */
	Pidfds.@Nullable Pidfd hold(long pid);

	/**
	 * Send SIGTERM or SIGKILL to a process if it is still the one of the snapshot.
	 * @param proc the process as a snapshot saw it
	 * @param kill SIGKILL, else SIGTERM
	 * @return whether the signal was sent
	 */
	boolean signal(Proc proc, boolean kill);

}

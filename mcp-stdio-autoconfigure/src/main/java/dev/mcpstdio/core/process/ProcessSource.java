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

package dev.mcpstdio.core.process;

import dev.mcpstdio.core.process.ProcessTable.Proc;

/**
 * Where the processes to end are read from and how they are signalled: the machine's own
 * ({@link ProcessScanner}), or a fake in tests.
 *
 * @author mcp-stdio authors
 */
interface ProcessSource {

	/**
	 * Read the live processes: a snapshot whose reading began after this call.
	 * @return a fresh snapshot
	 */
	ProcessTable scan();

	/**
	 * Read the live processes: a snapshot whose reading began at or after the given time,
	 * which may be one another caller asked for; by default, a fresh one.
	 * @param freshSince a {@link System#nanoTime()} not later than now
	 * @return a snapshot begun at or after {@code freshSince}
	 */
	default ProcessTable scan(long freshSince) {
		return scan();
	}

	/**
	 * Read the processes whose environment read empty in a snapshot again, as one does
	 * while it execs; by default, read everything again.
	 * @param table the snapshot
	 * @return a snapshot with those processes read again
	 */
	default ProcessTable reread(ProcessTable table) {
		return scan();
	}

	/**
	 * Send SIGTERM or SIGKILL to a process if it is still the one of the snapshot.
	 * @param proc the process as a snapshot saw it
	 * @param kill SIGKILL, else SIGTERM
	 * @return whether the signal was sent
	 */
	boolean signal(Proc proc, boolean kill);

}

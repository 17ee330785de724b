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

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.mcpstdio.core.tree.ProcessTable.Proc;
import org.jspecify.annotations.Nullable;

/**
 * Processes as a scan reads them, made up for the tests of what is done with them.
 *
 * @author mcp-stdio authors
 */
final class Procs {

	private Procs() {
	}

	/**
	 * A sleeping process of this user with 4 KiB resident.
	 * @param pid its pid
	 * @param ppid its parent
	 * @param pgid its process group
	 * @param sid its session
	 * @param start its start time, in clock ticks
	 * @param markers its markers, if any
	 * @return the process
	 */
	static Proc proc(long pid, long ppid, long pgid, long sid, long start, @Nullable ProcessMarkers markers) {
		return new Proc(new ProcessTable.Ids(pid, ppid, pgid, sid), 'S', start, 4096, markers, Membership.CURRENT_UID);
	}

	static ProcessTable table(Proc... procs) {
		return table(List.of(procs));
	}

	/** A snapshot of exactly these processes. */
	static ProcessTable table(Collection<Proc> procs) {
		Map<Long, Proc> byPid = new HashMap<>();
		procs.forEach((proc) -> byPid.put(proc.pid(), proc));
		return new ProcessTable(byPid, System.nanoTime(), 0, List.of());
	}

}

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

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

/**
 * The markers of the machine's processes as a scanner read them, and the user of each
 * process that has any.
 *
 * @author mcp-stdio authors
 */
final class MarkerCache {

	/**
	 * Markers of a process never change while it runs one program: they are cached by
	 * pid, start time and where its environment lies in memory (which an exec changes).
	 * Only definite answers are cached: an empty or failed read (as during {@code exec}
	 * or exit) is read again next time.
	 */
	private final Map<Long, Read> cache = new ConcurrentHashMap<>();

	private final ProcReader proc;

	MarkerCache(ProcReader proc) {
		this.proc = proc;
	}

	/**
	 * Return the markers of a process (with its user when it has any), or {@code null}
	 * when its environment was empty, as while it execs. Only a read that found an
	 * environment is cached: an empty or failed one is tried again next time. A proof
	 * ({@code useCache} false) reads afresh and caches nothing: a stranger with the pid,
	 * start time and environment address of a member would get its markers from a cache.
	 */
	@Nullable Read read(long pid, long startTime, long environAt, ProcCursor cursor, boolean useCache) {
		Read cached = useCache ? this.cache.get(pid) : null;
		if (cached != null && cached.startTime() == startTime && cached.environAt() == environAt) {
			return cached;
		}
		int length = cursor.readEnviron(pid);
		if (length < 0) {
			// Another user's, or gone: it has no markers we could act on
			return new Read(startTime, environAt, null, -1);
		}
		if (length == 0) {
			return null;
		}
		ProcessMarkers markers = ProcessMarkers.parse(cursor.buffer(), length);
		// Only markers are evidence that needs the user: read it only then
		cached = new Read(startTime, environAt, markers, (markers != null) ? this.proc.uid(pid) : -1);
		if (useCache) {
			this.cache.put(pid, cached);
		}
		return cached;
	}

	/**
	 * Forget the processes a snapshot no longer saw, once the cache holds many more than
	 * it did.
	 * @param live the pids of the snapshot
	 */
	void prune(Set<Long> live) {
		if (this.cache.size() > 4 * live.size() + 1024) {
			this.cache.keySet().removeIf((pid) -> !live.contains(pid));
		}
	}

	/**
	 * The markers of one program of a process.
	 *
	 * @param startTime the process's start time
	 * @param environAt where its environment lies in its memory
	 * @param markers its markers, {@code null} for none
	 * @param uid its user, read only when it has markers; -1 otherwise
	 */
	record Read(long startTime, long environAt, @Nullable ProcessMarkers markers, long uid) {

	}

}

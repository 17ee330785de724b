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

package dev.mcpstdio.core.containment;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What ending containers did.
 *
 * @param ids the containers
 * @param terminated how many were running and got SIGTERM
 * @param killed how many of those still ran after {@code terminate-timeout}, killed by
 * {@code rm -f}
 * @param removed whether none of them exists at the end
 * @param took how long it took
 * @param error what the engine said when it could not signal one
 * @author mcp-stdio authors
 */
record ContainerStop(List<String> ids, int terminated, int killed, boolean removed, Duration took,
		@Nullable String error) {

	/**
	 * End containers: SIGTERM to the main process of those running, one wait of up to
	 * {@code terminateTimeout} for all of them, then {@code rm -f} of all, whatever
	 * {@code --rm} says. Never {@code stop}, whose wait is fixed and not ours.
	 * @param engine the engine that runs them
	 * @param running the containers to signal first
	 * @param ids every container to remove
	 * @param terminateTimeout how long to wait after SIGTERM
	 * @return what was done
	 */
	static ContainerStop end(ContainerEngine engine, List<String> running, List<String> ids,
			Duration terminateTimeout) {
		long start = System.nanoTime();
		List<String> signalled = new ArrayList<>();
		String error = null;
		for (String id : running) {
			try {
				if (engine.kill(id, "TERM")) {
					signalled.add(id);
				}
			}
			catch (ContainerEngine.Failure ex) {
				// rm -f may still work: an engine that failed once is tried once more
				error = (error != null) ? error + "; " + ex.getMessage() : ex.getMessage();
			}
		}
		long deadline = System.nanoTime() + terminateTimeout.toNanos();
		int killed = 0;
		for (String id : signalled) {
			if (!engine.awaitExit(id, Duration.ofNanos(Math.max(1, deadline - System.nanoTime())))) {
				killed++;
			}
		}
		boolean removed = engine.remove(ids);
		return new ContainerStop(ids, signalled.size(), killed, removed, Duration.ofNanos(System.nanoTime() - start),
				error);
	}

}

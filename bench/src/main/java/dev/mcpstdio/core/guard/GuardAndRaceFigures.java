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

package dev.mcpstdio.core.guard;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import dev.mcpstdio.core.StartSendStopRace;
import dev.mcpstdio.core.containment.GuardedJvm;
import dev.mcpstdio.core.containment.OrphanGuard;
import dev.mcpstdio.test.Fixtures;

/**
 * Figures of the orphan guard and of the start-send-stop race, measured with the same
 * forked JVM and the same race as their tests ({@code OrphanGuardTests},
 * {@code StartSendStopRaceTests}), which assert and print nothing. Run by
 * {@code dev.mcpstdio.bench.LifecycleBenchmark}.
 *
 * @author mcp-stdio authors
 */
public final class GuardAndRaceFigures {

	private static final long STDIN_CLOSE_MILLIS = 1000;

	private static final long TERMINATE_MILLIS = 1000;

	private GuardAndRaceFigures() {
	}

	/**
	 * Measure the time from {@code kill -9} of a JVM to the last of its server's
	 * processes gone: a server that ignores stdin EOF and SIGTERM, with a child and a
	 * daemonized grandchild, stdin-close-timeout and terminate-timeout 1s each.
	 * @param runs how many JVMs to kill
	 * @return the figures
	 * @throws Exception if a JVM could not be forked
	 */
	public static List<String> killToLastProcessGone(int runs) throws Exception {
		Duration bound = OrphanGuard.bound(Duration.ofMillis(STDIN_CLOSE_MILLIS), Duration.ofMillis(TERMINATE_MILLIS));
		List<Long> millis = new ArrayList<>();
		for (int i = 0; i < runs; i++) {
			Fixtures fixtures = new Fixtures();
			try (GuardedJvm forked = GuardedJvm.fork(fixtures, STDIN_CLOSE_MILLIS, TERMINATE_MILLIS)) {
				forked.jvm().destroyForcibly();
				millis.add(GuardedJvm.awaitNoneAlive(fixtures, bound.plusSeconds(5)).toMillis());
			}
			finally {
				fixtures.assertNoneAlive(Duration.ZERO);
			}
		}
		List<Long> sorted = new ArrayList<>(millis);
		Collections.sort(sorted);
		return List.of("orphan guard: kill -9 of the JVM to the last server process gone, stdin-close-timeout "
				+ STDIN_CLOSE_MILLIS + " ms + terminate-timeout " + TERMINATE_MILLIS + " ms (bound " + bound.toMillis()
				+ " ms), " + runs + " runs: median " + sorted.get(sorted.size() / 2) + " ms, max "
				+ sorted.get(sorted.size() - 1) + " ms, all " + sorted);
	}

	/**
	 * Run the start-send-stop race of 16 threads.
	 * @param rounds rounds per thread
	 * @return the figures
	 * @throws InterruptedException if interrupted
	 */
	public static List<String> race(int rounds) throws InterruptedException {
		Fixtures fixtures = new Fixtures();
		try {
			return List.of("start-send-stop race, 16 threads: " + StartSendStopRace.run(fixtures, 16, rounds));
		}
		finally {
			fixtures.assertNoneAlive(Duration.ofSeconds(5));
		}
	}

}

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

package dev.mcpstdio.bench.transport;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.bench.transport.Connection.Side;

/**
 * The transport benchmark's cost at rest: the threads and heap one more idle, initialized
 * client costs on each side.
 *
 * @author mcp-stdio authors
 */
final class RestScenario {

	private final Results results;

	private final EchoServers servers;

	RestScenario(Results results, EchoServers servers) {
		this.results = results;
		this.servers = servers;
	}

	/**
	 * Run it for each side.
	 * @throws Exception if a client could not be opened
	 */
	void run() throws Exception {
		Map<Side, double[]> figures = new HashMap<>();
		for (Side side : Side.values()) {
			Markers markers = new Markers();
			settled();
			// What one more idle server costs: the first 20 pay what is paid once
			// (pools, caches, classes); then two more batches of 20 are measured and the
			// larger cost is kept, since garbage from earlier scenarios that a cache lets
			// go meanwhile can only make a batch look cheaper
			List<Connection> connections = new ArrayList<>(this.servers.openInitialized(side, "mcp", markers));
			double[] cost = { 0, Double.NEGATIVE_INFINITY };
			for (int batch = 0; batch < 2; batch++) {
				Thread.sleep(1000);
				double[] before = threadsAndHeap();
				connections.addAll(this.servers.openInitialized(side, "mcp", markers));
				Thread.sleep(1000);
				double[] after = threadsAndHeap();
				cost[0] = Math.max(cost[0], (after[0] - before[0]) / this.servers.count());
				cost[1] = Math.max(cost[1], (after[1] - before[1]) / this.servers.count());
			}
			figures.put(side, cost);
			EchoServers.closeAll(connections);
			Leftovers.after(markers, side + " cost at rest");
			System.out.printf(Locale.ROOT, "%s: %.2f threads and %.0f KiB heap per idle server%n", side.label(),
					figures.get(side)[0], figures.get(side)[1] / 1024);
		}
		String group = "6. cost at rest, idle initialized clients";
		this.results.time(group,
				"JVM threads per idle server (the JDK's process reaper, one per child on both sides, not counted)",
				figures.get(Side.OURS)[0], figures.get(Side.THEIRS)[0], "threads", "< 3");
		this.results.time(group, "heap per idle server, after GC", figures.get(Side.OURS)[1] / 1024,
				figures.get(Side.THEIRS)[1] / 1024, "KiB", "<= 76 KiB");
	}

	/**
	 * Threads and heap once what earlier scenarios left has gone: idle pool threads end
	 * after their keep-alive (30 s for mcp-stdio's tasks), and what they held with them.
	 */
	private static double[] settled() throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(45);
		double[] last = threadsAndHeap();
		int steady = 0;
		while (steady < 3 && System.nanoTime() < deadline) {
			Thread.sleep(1000);
			double[] now = threadsAndHeap();
			boolean same = now[0] == last[0] && Math.abs(now[1] - last[1]) < 64 * 1024;
			steady = same ? steady + 1 : 0;
			last = now;
		}
		return last;
	}

	private static double[] threadsAndHeap() throws InterruptedException {
		for (int i = 0; i < 3; i++) {
			System.gc();
			Thread.sleep(200);
		}
		long threads = Thread.getAllStackTraces().keySet().stream().filter((thread) -> !isReaper(thread)).count();
		return new double[] { threads, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() };
	}

	/**
	 * Whether a thread is one of the JDK's process reapers: one waits for each live child
	 * process, whichever client started it, and an idle one is reused for the next child
	 * for a minute, so that counting them counts what earlier scenarios left.
	 */
	private static boolean isReaper(Thread thread) {
		return thread.getName().startsWith("process reaper");
	}

}

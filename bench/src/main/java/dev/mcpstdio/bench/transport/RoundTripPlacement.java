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

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;

/**
 * A diagnosis of the round trip on Linux: one side's calls in three phases of one JVM,
 * each with the vCPU each thread last ran on and how often it moved. The phases: just
 * after that side's own warm-up; after the other side's calls; after 3 s idle.
 * <p>
 * Run it from {@code bench} as {@code java -cp target/classes:<the harness's classpath>
 * dev.mcpstdio.bench.transport.RoundTripPlacement ours} (or {@code sdk}); see
 * docs/benchmarks.md.
 *
 * @author mcp-stdio authors
 */
public final class RoundTripPlacement {

	private RoundTripPlacement() {
	}

	public static void main(String[] args) throws Exception {
		String side = (args.length > 0) ? args[0] : ClientContext.OURS;
		String other = side.equals(ClientContext.OURS) ? ClientContext.SDK : ClientContext.OURS;
		int warmup = 30000;
		int calls = 20000;
		Markers markers = new Markers();
		try (ClientContext application = ClientContext.start(new EchoServers(1).command("mcp"), markers, true, true)) {
			McpSyncClient measured = application.client(side);
			McpSyncClient disturbing = application.client(other);
			run(measured, warmup);
			phase(side + ", after its own warm-up", measured, calls);
			run(disturbing, calls);
			phase(side + ", after " + calls + " calls of " + other, measured, calls);
			Thread.sleep(3000);
			phase(side + ", after 3 s idle", measured, calls);
		}
		Leftovers.after(markers, "round trip placement");
		System.exit(0);
	}

	private static void phase(String name, McpSyncClient client, int calls) throws IOException {
		Map<String, long[]> before = threads();
		long[] nanos = new long[calls];
		for (int i = 0; i < calls; i++) {
			long start = System.nanoTime();
			call(client);
			nanos[i] = System.nanoTime() - start;
		}
		Map<String, long[]> after = threads();
		Arrays.sort(nanos);
		System.out.printf(Locale.ROOT, "%s: median %.1f µs, p90 %.1f µs%n", name, nanos[calls / 2] / 1e3,
				nanos[calls * 9 / 10] / 1e3);
		StringBuilder placement = new StringBuilder("  threads woken more than 1000 times, vCPU last run on (moves):");
		after.forEach((thread, now) -> {
			long[] was = before.getOrDefault(thread, new long[3]);
			if (now[0] - was[0] > 1000) {
				placement.append(' ')
					.append(thread.substring(0, thread.indexOf('/')))
					.append(" ")
					.append(now[1])
					.append(" (")
					.append(now[2] - was[2])
					.append(')');
			}
		});
		StringBuilder servers = new StringBuilder(";  servers' processes:");
		ProcessHandle.current().descendants().forEach((process) -> {
			Path proc = Path.of("/proc", Long.toString(process.pid()));
			servers.append(' ').append(name(proc)).append(process.pid()).append(" ").append(figures(proc)[1]);
		});
		System.out.println(placement.append(servers));
	}

	private static void run(McpSyncClient client, int calls) {
		for (int i = 0; i < calls; i++) {
			call(client);
		}
	}

	private static void call(McpSyncClient client) {
		client.callTool(new CallToolRequest("echo", Map.of("text", "x".repeat(100))));
	}

	/**
	 * Each thread of this JVM, by name and id: its switches, its last vCPU, its moves.
	 */
	private static Map<String, long[]> threads() throws IOException {
		Map<String, long[]> threads = new TreeMap<>();
		try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
			tasks.forEach((task) -> {
				try {
					threads.put(Files.readString(task.resolve("comm")).trim() + "/" + task.getFileName(),
							figures(task));
				}
				catch (IOException ex) {
					// the thread ended meanwhile
				}
			});
		}
		return threads;
	}

	private static String name(Path process) {
		try {
			return Files.readString(process.resolve("comm")).trim() + "/";
		}
		catch (IOException ex) {
			return "";
		}
	}

	/**
	 * Return a task's voluntary context switches, the vCPU it last ran on (field 39 of
	 * {@code stat}) and its migrations ({@code se.nr_migrations} of {@code sched}).
	 */
	private static long[] figures(Path task) {
		long[] figures = new long[3];
		try {
			for (String line : Files.readAllLines(task.resolve("status"))) {
				if (line.startsWith("voluntary_ctxt_switches:")) {
					figures[0] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
				}
			}
			String stat = Files.readString(task.resolve("stat"));
			figures[1] = Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[36]);
			for (String line : Files.readAllLines(task.resolve("sched"))) {
				if (line.startsWith("se.nr_migrations")) {
					figures[2] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			// ended meanwhile, or not Linux: the figures stay 0
		}
		return figures;
	}

}

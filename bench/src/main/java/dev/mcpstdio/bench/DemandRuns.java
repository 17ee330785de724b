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

package dev.mcpstdio.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.mcpstdio.bench.transport.Markers;
import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.core.server.StdioServerProcess.StopResult;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerListener;
import dev.mcpstdio.lifecycle.ServerState;
import org.springframework.context.ConfigurableApplicationContext;

import static dev.mcpstdio.bench.DemandBenchmark.IDLE_TIMEOUT;
import static dev.mcpstdio.bench.DemandBenchmark.SERVERS;
import static dev.mcpstdio.bench.DemandSupport.MB;
import static dev.mcpstdio.bench.DemandSupport.await;
import static dev.mcpstdio.bench.DemandSupport.call;
import static dev.mcpstdio.bench.DemandSupport.check;
import static dev.mcpstdio.bench.DemandSupport.figure;
import static dev.mcpstdio.bench.DemandSupport.heapAfterGc;
import static dev.mcpstdio.bench.DemandSupport.memory;
import static dev.mcpstdio.bench.DemandSupport.properties;
import static dev.mcpstdio.bench.DemandSupport.rss;
import static dev.mcpstdio.bench.DemandSupport.run;
import static dev.mcpstdio.bench.DemandSupport.server;
import static dev.mcpstdio.bench.DemandSupport.stopsSeen;
import static dev.mcpstdio.bench.DemandSupport.warmCalls;

/**
 * The demand benchmark's runs of servers: eager and lazy start-up, the memory cap, and
 * many lazy servers in one JVM; each run is a JVM of its own and prints its figures.
 *
 * @author mcp-stdio authors
 */
final class DemandRuns {

	private DemandRuns() {
	}

	static void startup(boolean lazy) throws Exception {
		Markers markers = new Markers();
		String echo = Path.of(DemandBenchmark.class.getResource("/echo-server.js").toURI()).toString();
		Map<String, Object> properties = properties();
		for (int i = 0; i < SERVERS; i++) {
			String prefix = "mcp.stdio.servers.echo-%02d.".formatted(i);
			server(properties, prefix, markers, echo, "mcp");
			if (lazy) {
				properties.put(prefix + "start", "lazy");
				properties.put(prefix + "idle-timeout", IDLE_TIMEOUT);
			}
		}
		long begin = System.nanoTime();
		try (ConfigurableApplicationContext context = run(properties)) {
			figure("ready-ms", (System.nanoTime() - begin) / 1e6);
			figure("jvm-ready-ms", System.currentTimeMillis() - ManagementFactory.getRuntimeMXBean().getStartTime());
			List<McpStdioServer> servers = context.getBean(McpStdioServers.class).list();
			ServerState expected = lazy ? ServerState.IDLE : ServerState.RUNNING;
			check(servers.stream().allMatch((server) -> server.state() == expected), "every server " + expected);
			memory("rest", servers, markers);
			if (lazy) {
				List<Double> firstCalls = new ArrayList<>();
				for (McpStdioServer server : servers) {
					long start = System.nanoTime();
					call(server);
					firstCalls.add((System.nanoTime() - start) / 1e6);
				}
				firstCalls.forEach((millis) -> figure("first-call-ms", millis));
				figure("first-call-max-ms", firstCalls.stream().mapToDouble(Double::doubleValue).max().orElse(0));
			}
			warmCalls(servers.get(0));
			if (lazy) {
				memory("use", servers, markers);
				await(() -> servers.stream()
					.allMatch((server) -> server.state() == ServerState.IDLE && server.lastExit() != null)
						&& markers.alive().isEmpty(), 120, "every server stopped for being idle");
				memory("idle", servers, markers);
			}
		}
		figure("left-after-close", markers.killLeftovers());
	}

	static void cap(String interval) throws Exception {
		Markers markers = new Markers();
		String grow = Path.of(DemandBenchmark.class.getResource("/grow-server.js").toURI()).toString();
		Map<String, Object> properties = properties();
		properties.put("mcp.stdio.resource-check-interval", interval);
		String prefix = "mcp.stdio.servers.grow.";
		// node's own 40 MB or so, then 260 MB more
		server(properties, prefix, markers, grow, "260");
		properties.put(prefix + "max-memory", "200MB");
		List<StopResult> stops = new ArrayList<>();
		try (ConfigurableApplicationContext context = run(properties)) {
			McpStdioServer server = context.getBean(McpStdioServers.class).get("grow");
			server.addListener(new ServerListener() {

				@Override
				public void stopped(McpStdioServer stopped, StopResult result) {
					synchronized (stops) {
						stops.add(result);
					}
				}

			});
			long pid = server.pid();
			Path status = Path.of("/proc", Long.toString(pid), "status");
			long crossed = 0;
			long peak = 0;
			// the root's resident memory, sampled every 2 ms until it is gone
			while (true) {
				long rss = rss(status);
				if (rss < 0) {
					break;
				}
				peak = Math.max(peak, rss);
				if (crossed == 0 && rss > 200 * MB) {
					crossed = System.nanoTime();
				}
				Thread.sleep(2);
			}
			long gone = System.nanoTime();
			await(() -> server.lastExit() != null && markers.alive().isEmpty() && stopsSeen(stops) == 1, 30,
					"the server stopped, all of it");
			check(crossed != 0, "crossed 200 MB");
			ExitInfo exit = server.lastExit();
			figure("crossing-to-stopped-ms", (gone - crossed) / 1e6);
			figure("peak-mb", (double) peak / MB);
			figure("memory-limit", "MEMORY_LIMIT".equals(exit.cause().name()) ? 1 : 0);
			synchronized (stops) {
				figure("stop-ms", stops.get(0).duration().toNanos() / 1e6);
			}
			figure("left", markers.alive().size());
		}
		markers.killLeftovers();
	}

	/** An application with this many lazy servers: ready time and memory. */
	static void lazyServers(int count) throws Exception {
		Markers markers = new Markers();
		Map<String, Object> servers = new LinkedHashMap<>();
		for (int i = 0; i < count; i++) {
			String prefix = "mcp.stdio.servers.lazy-%04d.".formatted(i);
			shellServer(servers, prefix, markers);
			servers.put(prefix + "start", "lazy");
		}
		// in a configuration file, as an application has them (Boot reads such a file
		// into a property source that never changes, and binds from it far faster than
		// from a mutable map of default properties)
		Path file = Files.createTempFile("mcp-stdio-bench-", ".properties");
		StringBuilder lines = new StringBuilder();
		servers.forEach((key, value) -> lines.append(key).append('=').append(value).append('\n'));
		Files.writeString(file, lines);
		Map<String, Object> properties = properties();
		properties.put("spring.config.additional-location", file.toUri().toString());
		long begin = System.nanoTime();
		try (ConfigurableApplicationContext context = run(properties)) {
			figure("ready-ms", (System.nanoTime() - begin) / 1e6);
			figure("jvm-ready-ms", System.currentTimeMillis() - ManagementFactory.getRuntimeMXBean().getStartTime());
			// the main thread's processor time from the JVM's start: what another load on
			// the machine does not stretch
			figure("ready-cpu-ms", ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() / 1e6);
			check(context.getBean(McpStdioServers.class).list().size() == count, count + " servers");
			heapAfterGc();
			figure("jvm-mb", (double) rss(Path.of("/proc/self/status")) / MB);
		}
		finally {
			Files.delete(file);
		}
	}

	static void shellServer(Map<String, Object> properties, String prefix, Markers markers) throws Exception {
		properties.put(prefix + "command", "sh");
		properties.put(prefix + "args[0]",
				Path.of(DemandBenchmark.class.getResource("/bench-server.sh").toURI()).toString());
		properties.put(prefix + "args[1]", "0");
		properties.put(prefix + "env." + Markers.VARIABLE, markers.value());
	}

}

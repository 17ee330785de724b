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

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import dev.mcpstdio.bench.transport.Connection;
import dev.mcpstdio.bench.transport.Markers;
import dev.mcpstdio.core.server.StdioServerProcess.StopResult;
import dev.mcpstdio.lifecycle.McpStdioServer;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;

import static dev.mcpstdio.bench.DemandBenchmark.SETTLE_MILLIS;

/**
 * What the demand benchmark's runs share: their application, servers and calls, and the
 * figures and checks they print.
 *
 * @author mcp-stdio authors
 */
final class DemandSupport {

	private DemandSupport() {
	}

	static final long MB = 1024 * 1024;

	static long heapAfterGc() throws InterruptedException {
		System.gc();
		Thread.sleep(SETTLE_MILLIS);
		return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
	}

	static int stopsSeen(List<StopResult> stops) {
		synchronized (stops) {
			return stops.size();
		}
	}

	static Map<String, Object> properties() {
		Map<String, Object> properties = new HashMap<>();
		properties.put("logging.level.dev.mcpstdio", "ERROR");
		properties.put("spring.main.banner-mode", "off");
		properties.put("spring.main.log-startup-info", "false");
		// measured without Spring AI (mcp-stdio performs the handshake itself): the
		// module's class path has Spring AI's MCP client for the lifecycle harness,
		// and its clients, initialized at start-up, would start every lazy server
		properties.put("spring.ai.mcp.client.enabled", "false");
		return properties;
	}

	static void server(Map<String, Object> properties, String prefix, Markers markers, String script, String arg) {
		properties.put(prefix + "command", Connection.executable("node"));
		properties.put(prefix + "args[0]", script);
		properties.put(prefix + "args[1]", arg);
		properties.put(prefix + "env." + Markers.VARIABLE, markers.value());
	}

	static ConfigurableApplicationContext run(Map<String, Object> properties) {
		SpringApplication application = new SpringApplication(DemandBenchmark.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.setDefaultProperties(properties);
		return application.run();
	}

	static void call(McpStdioServer server) {
		String id = "c-" + System.nanoTime();
		String answer = server
			.request(id,
					"{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"method\":\"tools/call\","
							+ "\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"" + "x".repeat(100) + "\"}}}")
			.join();
		check(answer.contains("xxxx"), "the echo");
	}

	static void warmCalls(McpStdioServer server) {
		for (int i = 0; i < 50; i++) {
			call(server);
		}
		double[] millis = new double[200];
		for (int i = 0; i < millis.length; i++) {
			long start = System.nanoTime();
			call(server);
			millis[i] = (System.nanoTime() - start) / 1e6;
		}
		Arrays.sort(millis);
		figure("warm-call-ms", millis[millis.length / 2]);
	}

	static void memory(String when, List<McpStdioServer> servers, Markers markers) throws Exception {
		System.gc();
		Thread.sleep(SETTLE_MILLIS);
		long jvm = rss(Path.of("/proc/self/status"));
		long serverBytes = 0;
		int processes = 0;
		for (McpStdioServer server : servers) {
			serverBytes += server.treeStats().memoryBytes();
			processes += server.treeStats().liveProcesses();
		}
		figure(when + "-jvm-mb", (double) jvm / MB);
		figure(when + "-servers-mb", (double) serverBytes / MB);
		figure(when + "-total-mb", (double) (jvm + serverBytes) / MB);
		figure(when + "-processes", processes);
		check(processes == markers.alive().size(), "the census agrees with the markers");
	}

	/** Resident memory from /proc/PID/status, or -1 when the process is gone. */
	static long rss(Path status) {
		try {
			for (String line : Files.readAllLines(status)) {
				if (line.startsWith("VmRSS:")) {
					return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
				}
			}
			// a zombie has no VmRSS
			return -1;
		}
		catch (IOException ex) {
			return -1;
		}
	}

	static void figure(String name, double value) {
		System.out.println("FIGURE " + name + " " + value);
	}

	static void check(boolean condition, String what) {
		if (!condition) {
			throw new IllegalStateException("expected " + what);
		}
	}

	static void await(BooleanSupplier condition, int seconds, String what) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
		while (!condition.getAsBoolean()) {
			check(System.nanoTime() < deadline, what + " within " + seconds + " s");
			Thread.sleep(20);
		}
	}

}

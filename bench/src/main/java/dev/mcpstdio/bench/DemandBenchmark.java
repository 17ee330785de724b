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

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

import dev.mcpstdio.bench.transport.Connection;
import dev.mcpstdio.bench.transport.Markers;
import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.core.server.StdioServerProcess.StopResult;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerListener;
import dev.mcpstdio.lifecycle.ServerState;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.execution.ToolExecutionException;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.context.SecurityContextImpl;

/**
 * What lazy start, idle stop and {@code max-memory} buy and cost: an application with 20
 * servers started eager and lazy (time to ready, resident memory of the JVM and its
 * servers at rest, in use and after the idle stop), the first call to a lazy server
 * against a warm call, and a server that grows to 300 MB under {@code max-memory: 200MB}
 * (time from crossing the cap to stopped, and what is left). Each run is a fresh JVM, so
 * that the JVM's own memory compares. Not a unit test: run it with
 * {@code mvn -B -Pbench -pl bench -am -DskipTests verify -Dbench.only=demand}.
 *
 * @author mcp-stdio authors
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class DemandBenchmark {

	private static final int SERVERS = Knobs.integer("bench.demand.servers", 20);

	private static final long SETTLE_MILLIS = Knobs.longValue("bench.demand.settle", 3000);

	private static final String IDLE_TIMEOUT = Knobs.string("bench.demand.idle-timeout", "15s");

	private static final int USERS = Knobs.integer("bench.demand.users", 500);

	private static final int LAZY_SERVERS = Knobs.integer("bench.demand.lazy-servers", 1000);

	private static final int CHURN_USERS = Knobs.integer("bench.demand.churn-users", 20000);

	private static final int CHURN_STEP = Knobs.integer("bench.demand.churn-step", 2000);

	private static final int THROUGHPUT_SECONDS = Knobs.integer("bench.demand.throughput-seconds", 30);

	/** Which runs: startup, cap, users, servers, churn, throughput (all by default). */
	private static final List<String> SCENARIOS = List
		.of(Knobs.string("bench.demand.scenarios", "startup,cap,users,servers,churn,throughput").split(","));

	private static final long MB = 1024 * 1024;

	private DemandBenchmark() {
	}

	public static void main(String[] args) throws Exception {
		if (args.length > 0) {
			// one measured run, in a JVM of its own
			if (args[0].equals("cap")) {
				cap(args[1]);
			}
			else if (args[0].equals("users")) {
				users();
			}
			else if (args[0].equals("servers")) {
				lazyServers(Integer.parseInt(args[1]));
			}
			else if (args[0].equals("churn")) {
				churn();
			}
			else if (args[0].equals("throughput")) {
				throughput();
			}
			else {
				startup(args[0].equals("lazy"));
			}
			System.exit(0);
		}
		int runs = Knobs.integer("bench.demand.runs", 3);
		Map<String, List<Double>> figures = new LinkedHashMap<>();
		for (int run = 0; run < runs && SCENARIOS.contains("startup"); run++) {
			// alternating, so that the machine's drift hits both alike
			child(figures, "eager");
			child(figures, "lazy");
		}
		List<String> intervals = List.of(Knobs.string("bench.demand.cap-intervals", "5s,1s").split(","));
		for (String interval : intervals) {
			for (int run = 0; run < runs && SCENARIOS.contains("cap"); run++) {
				child(figures, "cap", interval);
			}
		}
		for (int run = 0; run < runs; run++) {
			if (SCENARIOS.contains("users")) {
				child(figures, "users");
			}
			if (SCENARIOS.contains("servers")) {
				child(figures, "servers", "1");
				child(figures, "servers", Integer.toString(LAZY_SERVERS));
			}
			if (SCENARIOS.contains("throughput")) {
				child(figures, "throughput");
			}
		}
		if (SCENARIOS.contains("churn")) {
			// one run: 20,000 process starts
			child(figures, "churn");
		}
		String table = table(figures, intervals);
		System.out.println(table);
		Path out = Path.of(System.getProperty("bench.demand.out", "target/demand-results.md"));
		Files.createDirectories(out.toAbsolutePath().getParent());
		Files.writeString(out, table);
		System.out.println("Written to " + out.toAbsolutePath());
	}

	// The parent: runs each measurement in a JVM of its own and gathers its figures

	private static void child(Map<String, List<Double>> figures, String... args) throws Exception {
		List<String> command = new ArrayList<>(
				List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m", "-cp",
						System.getProperty("java.class.path")));
		for (String property : List.of("bench.demand.servers", "bench.demand.settle", "bench.demand.idle-timeout",
				"bench.demand.users", "bench.demand.churn-users", "bench.demand.churn-step",
				"bench.demand.throughput-seconds")) {
			if (System.getProperty(property) != null) {
				command.add("-D" + property + "=" + System.getProperty(property));
			}
		}
		command.add(DemandBenchmark.class.getName());
		command.addAll(Arrays.asList(args));
		System.out.println("== " + String.join(" ", args));
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		String prefix = String.join("-", args) + ".";
		try (BufferedReader out = new BufferedReader(
				new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
			for (String line = out.readLine(); line != null; line = out.readLine()) {
				System.out.println("   " + line);
				if (line.startsWith("FIGURE ")) {
					String[] parts = line.split(" ");
					figures.computeIfAbsent(prefix + parts[1], (key) -> new ArrayList<>())
						.add(Double.parseDouble(parts[2]));
				}
			}
		}
		if (!process.waitFor(30, TimeUnit.MINUTES) || process.exitValue() != 0) {
			process.destroyForcibly();
			throw new IllegalStateException("run " + String.join(" ", args) + " failed");
		}
	}

	private static String table(Map<String, List<Double>> figures, List<String> intervals) {
		StringBuilder table = new StringBuilder();
		table.append("| measure | eager | lazy |\n| --- | --- | --- |\n");
		row(table, figures, "ms to ready: SpringApplication.run() with " + SERVERS + " servers", "ready-ms", " ms");
		row(table, figures, "ms to ready from the JVM's start", "jvm-ready-ms", " ms");
		row(table, figures, "resident memory at rest: JVM", "rest-jvm-mb", " MB");
		row(table, figures, "resident memory at rest: servers", "rest-servers-mb", " MB");
		row(table, figures, "resident memory at rest: JVM + servers", "rest-total-mb", " MB");
		row(table, figures, "live server processes at rest", "rest-processes", "");
		row(table, figures, "warm call (tools/call echo), median of 200", "warm-call-ms", " ms");
		table.append("\n| lazy server | figure |\n| --- | --- |\n");
		for (String[] measure : new String[][] {
				{ "first call: start + handshake + answer (median of " + SERVERS + " servers x runs)", "first-call-ms",
						" ms" },
				{ "first call, slowest", "first-call-max-ms", " ms" },
				{ "JVM + servers, all " + SERVERS + " in use", "use-total-mb", " MB" },
				{ "JVM + servers after the idle stop (idle-timeout " + IDLE_TIMEOUT + ")", "idle-total-mb", " MB" },
				{ "of which servers after the idle stop", "idle-servers-mb", " MB" },
				{ "live server processes after the idle stop", "idle-processes", "" } }) {
			table.append("| ").append(measure[0]).append(" | ");
			table.append(summary(figures.get("lazy." + measure[1]), measure[2])).append(" |\n");
		}
		table.append("\n| resource-check-interval | crossing 200 MB to stopped | of which the stop | peak RSS seen "
				+ "| exit cause | processes left |\n| --- | --- | --- | --- | --- | --- |\n");
		for (String interval : intervals) {
			String prefix = "cap-" + interval + ".";
			table.append("| ").append(interval).append(" | ");
			table.append(summary(figures.get(prefix + "crossing-to-stopped-ms"), " ms")).append(" | ");
			table.append(summary(figures.get(prefix + "stop-ms"), " ms")).append(" | ");
			table.append(summary(figures.get(prefix + "peak-mb"), " MB")).append(" | ");
			List<Double> limited = figures.get(prefix + "memory-limit");
			table.append((limited != null && limited.stream().allMatch((v) -> v == 1.0)) ? "MEMORY_LIMIT" : "other");
			table.append(" | ").append(summary(figures.get(prefix + "left"), "")).append(" |\n");
		}
		table.append("\n| per-user server, ")
			.append(USERS)
			.append(" users calling it once | figure |\n| --- | --- |\n");
		for (String[] measure : new String[][] { { "instances running after the calls", "instances", "" },
				{ "time for every user's first call (16 callers)", "start-s", " s" },
				{ "instances started per second", "started-per-s", "" },
				{ "JVM threads per running instance, at the peak of the starts", "peak-threads", "" },
				{ "JVM threads per running instance, at rest", "threads", "" },
				{ "JVM heap per running instance, after a GC", "heap-kb", " KB" },
				{ "JVM resident memory with every instance running", "jvm-mb", " MB" },
				{ "stop of all instances (in parallel)", "stop-ms", " ms" },
				{ "processes left after the stop", "left", "" } }) {
			table.append("| ").append(measure[0]).append(" | ");
			table.append(summary(figures.get("users." + measure[1]), measure[2])).append(" |\n");
		}
		table.append("\n| per-user server, ")
			.append(CHURN_USERS)
			.append(" distinct users one call each through Spring AI (max-instances 50), after every ")
			.append(CHURN_STEP)
			.append(" users | heap after a full GC | platform threads | open fds | instances |\n")
			.append("| --- | --- | --- | --- | --- |\n");
		for (int users = CHURN_STEP; users <= CHURN_USERS; users += CHURN_STEP) {
			String prefix = "churn." + users + "-";
			table.append("| ").append(users).append(" | ");
			table.append(summary(figures.get(prefix + "heap-mb"), " MB")).append(" | ");
			table.append(summary(figures.get(prefix + "threads"), "")).append(" | ");
			table.append(summary(figures.get(prefix + "fds"), "")).append(" | ");
			table.append(summary(figures.get(prefix + "instances"), "")).append(" |\n");
		}
		table.append("\n| churn | figure |\n| --- | --- |\n");
		for (String[] measure : new String[][] { { "calls answered", "churn.answered", "" },
				{ "calls refused (max-instances after instance-wait)", "churn.refused", "" },
				{ "calls failed otherwise", "churn.failed", "" }, { "calls per second", "churn.calls-per-s", "" },
				{ "processes left after the context closed", "churn.left", "" },
				{ "throughput, 50 users over 10 slots (16 callers): calls per second", "throughput.calls-per-s", "" },
				{ "of which refused (max-instances after instance-wait 5s)", "throughput.refused", "" },
				{ "failed otherwise", "throughput.failed", "" }, { "slowest call", "throughput.slowest-ms", " ms" },
				{ "instances started during the run", "throughput.starts", "" } }) {
			table.append("| ").append(measure[0]).append(" | ");
			table.append(summary(figures.get(measure[1]), measure[2])).append(" |\n");
		}
		table.append("\n| lazy servers in one JVM | 1 | ").append(LAZY_SERVERS).append(" |\n| --- | --- | --- |\n");
		for (String[] measure : new String[][] { { "ms to ready: SpringApplication.run()", "ready-ms", " ms" },
				{ "ms to ready from the JVM's start", "jvm-ready-ms", " ms" },
				{ "processor time of the main thread to ready", "ready-cpu-ms", " ms" },
				{ "JVM resident memory at rest", "jvm-mb", " MB" } }) {
			table.append("| ").append(measure[0]).append(" | ");
			table.append(summary(figures.get("servers-1." + measure[1]), measure[2])).append(" | ");
			table.append(summary(figures.get("servers-" + LAZY_SERVERS + "." + measure[1]), measure[2])).append(" |\n");
		}
		return table.toString();
	}

	private static void row(StringBuilder table, Map<String, List<Double>> figures, String label, String key,
			String unit) {
		table.append("| ").append(label).append(" | ").append(summary(figures.get("eager." + key), unit));
		table.append(" | ").append(summary(figures.get("lazy." + key), unit)).append(" |\n");
	}

	private static String summary(List<Double> values, String unit) {
		if (values == null || values.isEmpty()) {
			return "-";
		}
		List<Double> sorted = values.stream().sorted().toList();
		double median = sorted.get(sorted.size() / 2);
		if (sorted.size() == 1 || sorted.get(0).equals(sorted.get(sorted.size() - 1))) {
			return format(median) + unit;
		}
		return format(median) + unit + " (" + format(sorted.get(0)) + "-" + format(sorted.get(sorted.size() - 1))
				+ ", n=" + sorted.size() + ")";
	}

	private static String format(double value) {
		if (value >= 100 || value == Math.rint(value)) {
			return String.format(Locale.ROOT, "%.0f", value);
		}
		return String.format(Locale.ROOT, (value >= 10) ? "%.1f" : "%.2f", value);
	}

	// The children: one measured application each

	private static void startup(boolean lazy) throws Exception {
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

	private static void cap(String interval) throws Exception {
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

	/**
	 * One per-user server, every user calling it once: threads, heap and memory per
	 * running instance, and the stop of them all. Its server is a shell (about 1 MB).
	 */
	private static void users() throws Exception {
		Markers markers = new Markers();
		Map<String, Object> properties = properties();
		String prefix = "mcp.stdio.servers.account.";
		shellServer(properties, prefix, markers);
		properties.put(prefix + "instances", "per-user");
		properties.put(prefix + "max-instances", USERS);
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		ThreadPoolExecutor callers = new ThreadPoolExecutor(16, 16, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
		callers.prestartAllCoreThreads();
		try (ConfigurableApplicationContext context = run(properties)) {
			McpStdioServer server = context.getBean(McpStdioServers.class).get("account");
			long heap = heapAfterGc();
			int before = threads.getThreadCount();
			threads.resetPeakThreadCount();
			long begin = System.nanoTime();
			List<Future<?>> calls = new ArrayList<>();
			for (int user = 0; user < USERS; user++) {
				String name = "user-" + user;
				calls.add(callers.submit(() -> {
					SecurityContextHolder.setContext(new SecurityContextImpl(
							new TestingAuthenticationToken(name, null, AuthorityUtils.createAuthorityList("USER"))));
					server.request(name, "{\"jsonrpc\":\"2.0\",\"id\":\"" + name + "\",\"method\":\"ping\"}")
						.get(60, TimeUnit.SECONDS);
					return null;
				}));
			}
			for (Future<?> call : calls) {
				call.get(5, TimeUnit.MINUTES);
			}
			double seconds = (System.nanoTime() - begin) / 1e9;
			figure("start-s", seconds);
			figure("started-per-s", USERS / seconds);
			long running = server.instances().values().stream().filter((i) -> i.state() == ServerState.RUNNING).count();
			figure("instances", running);
			figure("peak-threads", (threads.getPeakThreadCount() - before) / (double) running);
			figure("heap-kb", (heapAfterGc() - heap) / 1024.0 / running);
			figure("threads", (threads.getThreadCount() - before) / (double) running);
			figure("jvm-mb", (double) rss(Path.of("/proc/self/status")) / MB);
			long stop = System.nanoTime();
			server.stopServer();
			figure("stop-ms", (System.nanoTime() - stop) / 1e6);
			figure("left", markers.alive().size());
		}
		finally {
			callers.shutdownNow();
		}
		markers.killLeftovers();
	}

	/**
	 * One per-user server with the default max-instances, 20,000 distinct users calling
	 * its tool once each through Spring AI's client (the ToolCallbackProvider, as a chat
	 * does), 4 callers: the heap after a full GC, the platform threads and the open file
	 * descriptors after every 2,000 users, then the processes left once the context is
	 * closed.
	 */
	private static void churn() throws Exception {
		Markers markers = new Markers();
		Map<String, Object> properties = toolServer("account", markers);
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		ThreadPoolExecutor callers = new ThreadPoolExecutor(4, 4, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
		callers.prestartAllCoreThreads();
		AtomicInteger answered = new AtomicInteger();
		AtomicInteger refused = new AtomicInteger();
		AtomicInteger failed = new AtomicInteger();
		long begin;
		double seconds;
		try (ConfigurableApplicationContext context = run(properties)) {
			McpStdioServer server = context.getBean(McpStdioServers.class).get("account");
			ToolCallbackProvider tools = context.getBean("mcpToolCallbacks", ToolCallbackProvider.class);
			begin = System.nanoTime();
			for (int from = 0; from < CHURN_USERS; from += CHURN_STEP) {
				List<Future<?>> calls = new ArrayList<>();
				for (int user = from; user < from + CHURN_STEP; user++) {
					String name = "user-" + user;
					calls.add(callers.submit(() -> callTool(tools, name, answered, refused, failed)));
				}
				for (Future<?> call : calls) {
					call.get(10, TimeUnit.MINUTES);
				}
				String prefix = (from + CHURN_STEP) + "-";
				figure(prefix + "heap-mb", heapAfterGc() / (double) MB);
				figure(prefix + "threads", threads.getThreadCount());
				figure(prefix + "fds", openFds());
				figure(prefix + "instances", server.instances().size());
			}
			seconds = (System.nanoTime() - begin) / 1e9;
		}
		finally {
			callers.shutdownNow();
		}
		figure("answered", answered.get());
		figure("refused", refused.get());
		figure("failed", failed.get());
		figure("calls-per-s", CHURN_USERS / seconds);
		figure("left", markers.alive().size());
		markers.killLeftovers();
	}

	/**
	 * Churn throughput: 50 users over 10 slots (max-instances 10, instance-wait 5s), 16
	 * callers each calling as a random user through Spring AI's client, for a while.
	 */
	private static void throughput() throws Exception {
		Markers markers = new Markers();
		Map<String, Object> properties = toolServer("account", markers);
		properties.put("mcp.stdio.servers.account.max-instances", 10);
		ThreadPoolExecutor callers = new ThreadPoolExecutor(16, 16, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
		callers.prestartAllCoreThreads();
		AtomicInteger answered = new AtomicInteger();
		AtomicInteger refused = new AtomicInteger();
		AtomicInteger failed = new AtomicInteger();
		AtomicLong slowest = new AtomicLong();
		try (ConfigurableApplicationContext context = run(properties)) {
			McpStdioServer server = context.getBean(McpStdioServers.class).get("account");
			ToolCallbackProvider tools = context.getBean("mcpToolCallbacks", ToolCallbackProvider.class);
			Set<String> pids = ConcurrentHashMap.newKeySet();
			long begin = System.nanoTime();
			long end = begin + TimeUnit.SECONDS.toNanos(THROUGHPUT_SECONDS);
			List<Future<?>> workers = new ArrayList<>();
			for (int t = 0; t < 16; t++) {
				workers.add(callers.submit(() -> {
					while (System.nanoTime() < end) {
						long start = System.nanoTime();
						String answer = callTool(tools, "user-" + ThreadLocalRandom.current().nextInt(50), answered,
								refused, failed);
						if (answer != null) {
							pids.add(answer);
						}
						slowest.accumulateAndGet(System.nanoTime() - start, Math::max);
					}
					return null;
				}));
			}
			for (Future<?> worker : workers) {
				worker.get(10, TimeUnit.MINUTES);
			}
			double seconds = (System.nanoTime() - begin) / 1e9;
			figure("calls-per-s", (answered.get() + refused.get() + failed.get()) / seconds);
			figure("answered", answered.get());
			figure("refused", refused.get());
			figure("failed", failed.get());
			figure("slowest-ms", slowest.get() / 1e6);
			// each answer names the pid of the instance's process
			figure("starts", pids.size());
		}
		finally {
			callers.shutdownNow();
		}
		figure("left", markers.alive().size());
		markers.killLeftovers();
	}

	/** A per-user server whose one tool answers, with Spring AI's client on. */
	private static Map<String, Object> toolServer(String name, Markers markers) throws Exception {
		Map<String, Object> properties = properties();
		String prefix = "mcp.stdio.servers." + name + ".";
		properties.put(prefix + "command", "sh");
		properties.put(prefix + "args[0]",
				Path.of(DemandBenchmark.class.getResource("/bench-tools-server.sh").toURI()).toString());
		properties.put(prefix + "env." + Markers.VARIABLE, markers.value());
		properties.put(prefix + "instances", "per-user");
		properties.put("spring.ai.mcp.client.enabled", "true");
		properties.put("spring.ai.mcp.client.toolcallback.enabled", "true");
		return properties;
	}

	/** Sign a user in on this thread and call the tool as a chat would. */
	private static @Nullable String callTool(ToolCallbackProvider tools, String user, AtomicInteger answered,
			AtomicInteger refused, AtomicInteger failed) {
		SecurityContextHolder.setContext(new SecurityContextImpl(
				new TestingAuthenticationToken(user, null, AuthorityUtils.createAuthorityList("USER"))));
		try {
			ToolCallback who = Arrays.stream(tools.getToolCallbacks())
				.filter((callback) -> callback.getToolDefinition().name().equals("who"))
				.findFirst()
				.orElseThrow(() -> new IllegalStateException("no tool who"));
			String answer = who.call("{}");
			if (answer.contains("pid ")) {
				answered.incrementAndGet();
				return answer;
			}
			failed.incrementAndGet();
		}
		catch (ToolExecutionException ex) {
			if (String.valueOf(ex.getMessage()).contains("max-instances")) {
				refused.incrementAndGet();
			}
			else {
				failed.incrementAndGet();
				System.out.println("FAILED " + ex.getMessage());
			}
		}
		catch (RuntimeException ex) {
			failed.incrementAndGet();
			System.out.println("FAILED " + ex);
		}
		finally {
			SecurityContextHolder.clearContext();
		}
		return null;
	}

	private static long openFds() {
		try (var fds = Files.list(Path.of("/proc/self/fd"))) {
			return fds.count();
		}
		catch (IOException ex) {
			return -1;
		}
	}

	/** An application with this many lazy servers: ready time and memory. */
	private static void lazyServers(int count) throws Exception {
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

	private static void shellServer(Map<String, Object> properties, String prefix, Markers markers) throws Exception {
		properties.put(prefix + "command", "sh");
		properties.put(prefix + "args[0]",
				Path.of(DemandBenchmark.class.getResource("/bench-server.sh").toURI()).toString());
		properties.put(prefix + "args[1]", "0");
		properties.put(prefix + "env." + Markers.VARIABLE, markers.value());
	}

	private static long heapAfterGc() throws InterruptedException {
		System.gc();
		Thread.sleep(SETTLE_MILLIS);
		return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
	}

	private static int stopsSeen(List<StopResult> stops) {
		synchronized (stops) {
			return stops.size();
		}
	}

	private static Map<String, Object> properties() {
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

	private static void server(Map<String, Object> properties, String prefix, Markers markers, String script,
			String arg) {
		properties.put(prefix + "command", Connection.executable("node"));
		properties.put(prefix + "args[0]", script);
		properties.put(prefix + "args[1]", arg);
		properties.put(prefix + "env." + Markers.VARIABLE, markers.value());
	}

	private static ConfigurableApplicationContext run(Map<String, Object> properties) {
		SpringApplication application = new SpringApplication(DemandBenchmark.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.setDefaultProperties(properties);
		return application.run();
	}

	private static void call(McpStdioServer server) {
		String id = "c-" + System.nanoTime();
		String answer = server
			.request(id,
					"{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"method\":\"tools/call\","
							+ "\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"" + "x".repeat(100) + "\"}}}")
			.join();
		check(answer.contains("xxxx"), "the echo");
	}

	private static void warmCalls(McpStdioServer server) {
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

	private static void memory(String when, List<McpStdioServer> servers, Markers markers) throws Exception {
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
	private static long rss(Path status) {
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

	private static void figure(String name, double value) {
		System.out.println("FIGURE " + name + " " + value);
	}

	private static void check(boolean condition, String what) {
		if (!condition) {
			throw new IllegalStateException("expected " + what);
		}
	}

	private static void await(BooleanSupplier condition, int seconds, String what) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
		while (!condition.getAsBoolean()) {
			check(System.nanoTime() < deadline, what + " within " + seconds + " s");
			Thread.sleep(20);
		}
	}

}

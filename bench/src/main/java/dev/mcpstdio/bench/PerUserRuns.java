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
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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

import dev.mcpstdio.bench.transport.Markers;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.execution.ToolExecutionException;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.context.SecurityContextImpl;

import static dev.mcpstdio.bench.DemandBenchmark.THROUGHPUT_SECONDS;
import static dev.mcpstdio.bench.DemandBenchmark.CHURN_STEP;
import static dev.mcpstdio.bench.DemandBenchmark.CHURN_USERS;
import static dev.mcpstdio.bench.DemandBenchmark.USERS;
import static dev.mcpstdio.bench.DemandRuns.shellServer;
import static dev.mcpstdio.bench.DemandSupport.MB;
import static dev.mcpstdio.bench.DemandSupport.figure;
import static dev.mcpstdio.bench.DemandSupport.heapAfterGc;
import static dev.mcpstdio.bench.DemandSupport.properties;
import static dev.mcpstdio.bench.DemandSupport.rss;
import static dev.mcpstdio.bench.DemandSupport.run;

/**
 * The demand benchmark's runs of per-user servers: users each holding an instance, churn
 * past the heap's steady state, and calls per second through Spring AI.
 *
 * @author mcp-stdio authors
 */
final class PerUserRuns {

	private PerUserRuns() {
	}

	/**
	 * One per-user server, every user calling it once: threads, heap and memory per
	 * running instance, and the stop of them all. Its server is a shell (about 1 MB).
	 */
	static void users() throws Exception {
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
	static void churn() throws Exception {
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
	static void throughput() throws Exception {
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
	static @Nullable String callTool(ToolCallbackProvider tools, String user, AtomicInteger answered,
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

}

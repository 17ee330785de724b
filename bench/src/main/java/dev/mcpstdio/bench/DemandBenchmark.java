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
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

import static dev.mcpstdio.bench.DemandRuns.cap;
import static dev.mcpstdio.bench.DemandRuns.lazyServers;
import static dev.mcpstdio.bench.DemandRuns.startup;
import static dev.mcpstdio.bench.DemandTable.table;
import static dev.mcpstdio.bench.PerUserRuns.churn;
import static dev.mcpstdio.bench.PerUserRuns.throughput;
import static dev.mcpstdio.bench.PerUserRuns.users;

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

	/** Which runs: startup, cap, users, servers, churn, throughput (all by default). */
	private static final List<String> SCENARIOS = List
		.of(Knobs.string("bench.demand.scenarios", "startup,cap,users,servers,churn,throughput").split(","));

	static final int SERVERS = Knobs.integer("bench.demand.servers", 20);

	static final String IDLE_TIMEOUT = Knobs.string("bench.demand.idle-timeout", "15s");

	static final long SETTLE_MILLIS = Knobs.longValue("bench.demand.settle", 3000);

	static final int USERS = Knobs.integer("bench.demand.users", 500);

	static final int CHURN_USERS = Knobs.integer("bench.demand.churn-users", 20000);

	static final int CHURN_STEP = Knobs.integer("bench.demand.churn-step", 2000);

	static final int THROUGHPUT_SECONDS = Knobs.integer("bench.demand.throughput-seconds", 30);

	static final int LAZY_SERVERS = Knobs.integer("bench.demand.lazy-servers", 1000);

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

}

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
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Measures what observing many MCP servers costs, through the endpoint and the scrape.
 *
 * @author mcp-stdio authors
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class ObservabilityBenchmark {

	private static final String MARKER = "MCP_STDIO_BENCH";

	private static final Duration COLD_SPACING = Duration.ofMillis(300);

	/**
	 * Start a web application with {@code bench.servers} servers of
	 * {@code bench.children} sleeping children each, then time reads of
	 * {@code /actuator/mcpservers} and scrapes of {@code /actuator/prometheus} over HTTP,
	 * warm (back to back, sharing process snapshots) and cold (spaced so that each one
	 * scans {@code /proc} afresh). Run with
	 * {@code mvn -Pbench -pl bench -am -DskipTests verify}.
	 * @param args the application's arguments
	 * @throws Exception if it could not run
	 */
	public static void main(String[] args) throws Exception {
		int servers = Knobs.integer("bench.servers", 50);
		int children = Knobs.integer("bench.children", 3);
		int iterations = Knobs.integer("bench.iterations", 500);
		int coldIterations = Knobs.integer("bench.coldIterations", 150);
		String markerValue = UUID.randomUUID().toString();
		String script = Path.of(ObservabilityBenchmark.class.getResource("/bench-server.sh").toURI()).toString();
		Map<String, Object> properties = new HashMap<>();
		properties.put("server.port", "0");
		properties.put("management.endpoints.web.exposure.include", "health,mcpservers,prometheus");
		// the benchmark restarts a server through the endpoint and prints what it shows:
		// a local run with nothing secret in its command lines
		properties.put("management.endpoint.mcpservers.access", "unrestricted");
		properties.put("management.endpoint.mcpservers.show-values", "always");
		properties.put("logging.level.dev.mcpstdio", "WARN");
		for (int i = 0; i < servers; i++) {
			String prefix = "mcp.stdio.servers.bench-%02d.".formatted(i);
			properties.put(prefix + "command", "sh");
			properties.put(prefix + "args[0]", script);
			properties.put(prefix + "args[1]", Integer.toString(children));
			properties.put(prefix + "env." + MARKER, markerValue);
		}
		SpringApplication application = new SpringApplication(ObservabilityBenchmark.class);
		application.setDefaultProperties(properties);
		long started = System.nanoTime();
		int expected = servers * (children + 1);
		try (ConfigurableApplicationContext context = application.run(args)) {
			System.out.printf(Locale.ROOT, "Started %d servers in %d ms%n", servers,
					(System.nanoTime() - started) / 1_000_000);
			String base = "http://localhost:" + context.getEnvironment().getProperty("local.server.port");
			HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
			awaitProcesses(http, base, expected);
			report(http, base, expected, iterations, coldIterations);
			capture(http, base);
		}
		System.out.printf(Locale.ROOT, "Processes with the benchmark's marker after stop: %d%n", alive(markerValue));
	}

	private static void awaitProcesses(HttpClient http, String base, int expected) throws Exception {
		long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
		int live = -1;
		while (System.nanoTime() < deadline) {
			live = JsonMapper.shared().readTree(get(http, base + "/actuator/mcpservers")).get("liveProcesses").asInt();
			if (live == expected) {
				return;
			}
			Thread.sleep(200);
		}
		throw new IllegalStateException("Expected " + expected + " live processes, the endpoint shows " + live);
	}

	private static void report(HttpClient http, String base, int expected, int iterations, int coldIterations)
			throws Exception {
		String endpoint = base + "/actuator/mcpservers";
		String prometheus = base + "/actuator/prometheus";
		JsonNode all = JsonMapper.shared().readTree(get(http, endpoint));
		String scrape = get(http, prometheus);
		System.out.printf(Locale.ROOT, "Endpoint shows %d live processes (expected %d); response %d bytes%n",
				all.get("liveProcesses").asInt(), expected, get(http, endpoint).length());
		System.out.printf(Locale.ROOT, "Scrape %d bytes, %d mcp_stdio_processes series%n", scrape.length(),
				scrape.lines().filter((line) -> line.startsWith("mcp_stdio_processes{")).count());
		// warm up the JIT and the connection
		for (int i = 0; i < 100; i++) {
			get(http, endpoint);
			get(http, prometheus);
		}
		System.out.printf(Locale.ROOT, "Processes on the machine: %d%n", processesOnTheMachine());
		System.out.println();
		System.out.println("| measure | n | median | p99 | max |");
		System.out.println("| --- | --- | --- | --- | --- |");
		long[] coldEndpoint = time(coldIterations, COLD_SPACING, () -> get(http, endpoint));
		long[] coldScrape = time(coldIterations, COLD_SPACING, () -> get(http, prometheus));
		long[] warmEndpoint = time(iterations, Duration.ZERO, () -> get(http, endpoint));
		long[] warmScrape = time(iterations, Duration.ZERO, () -> get(http, prometheus));
		print("GET /actuator/mcpservers, cold (each read scans /proc)", coldEndpoint);
		print("GET /actuator/prometheus, cold (each scrape scans /proc)", coldScrape);
		print("GET /actuator/mcpservers, warm (back to back)", warmEndpoint);
		print("GET /actuator/prometheus, warm (back to back)", warmScrape);
		print("GET /actuator/health (for scale)",
				time(iterations, Duration.ZERO, () -> get(http, base + "/actuator/health")));
		System.out.println();
		// the product's /proc scan is not reachable from here: what a cold read costs
		// more
		// than a warm one bounds its share from above
		System.out.printf(Locale.ROOT,
				"A cold read costs more than a warm one (the /proc scan and what else it pays), median: "
						+ "endpoint %.2f ms, scrape %.2f ms%n",
				(median(coldEndpoint) - median(warmEndpoint)) / 1e6, (median(coldScrape) - median(warmScrape)) / 1e6);
		System.out.println();
	}

	private static void capture(HttpClient http, String base) throws Exception {
		System.out.println("GET /actuator/mcpservers/bench-00:");
		System.out.println(get(http, base + "/actuator/mcpservers/bench-00"));
		HttpRequest restart = HttpRequest.newBuilder(URI.create(base + "/actuator/mcpservers/bench-01"))
			.timeout(Duration.ofSeconds(60))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString("{\"action\":\"restart\"}"))
			.build();
		System.out.println("POST /actuator/mcpservers/bench-01 {\"action\":\"restart\"}:");
		System.out.println(http.send(restart, HttpResponse.BodyHandlers.ofString()).body());
		System.out.println("GET /actuator/prometheus, the lines of bench-01:");
		get(http, base + "/actuator/prometheus").lines()
			.filter((line) -> line.startsWith("# HELP mcp_stdio") || line.startsWith("# TYPE mcp_stdio")
					|| (line.startsWith("mcp_stdio") && line.contains("server=\"bench-01\"")))
			.forEach(System.out::println);
		System.out.println();
	}

	private static long[] time(int iterations, Duration spacing, Work work) throws Exception {
		long[] nanos = new long[iterations];
		for (int i = 0; i < iterations; i++) {
			if (!spacing.isZero()) {
				Thread.sleep(spacing.toMillis());
			}
			long start = System.nanoTime();
			work.run();
			nanos[i] = System.nanoTime() - start;
		}
		Arrays.sort(nanos);
		return nanos;
	}

	private static long median(long[] sorted) {
		return sorted[sorted.length / 2];
	}

	private static int processesOnTheMachine() throws IOException {
		int count = 0;
		try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
			for (Path ignored : dirs) {
				count++;
			}
		}
		return count;
	}

	private static void print(String what, long[] sorted) {
		System.out.printf(Locale.ROOT, "| %s | %d | %.2f ms | %.2f ms | %.2f ms |%n", what, sorted.length,
				sorted[sorted.length / 2] / 1e6, sorted[(int) Math.ceil(sorted.length * 0.99) - 1] / 1e6,
				sorted[sorted.length - 1] / 1e6);
	}

	private static String get(HttpClient http, String uri) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(30)).GET().build();
		HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
		if (response.statusCode() != 200) {
			throw new IllegalStateException(uri + " answered " + response.statusCode() + ": " + response.body());
		}
		return response.body();
	}

	private static int alive(String markerValue) {
		byte[] needle = (MARKER + "=" + markerValue).getBytes(StandardCharsets.UTF_8);
		int count = 0;
		try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
			for (Path dir : dirs) {
				try (InputStream in = Files.newInputStream(dir.resolve("environ"))) {
					String env = new String(in.readNBytes(1024 * 1024), StandardCharsets.UTF_8);
					if (Arrays.asList(env.split("\0")).contains(new String(needle, StandardCharsets.UTF_8))
							&& !Files.readString(dir.resolve("stat")).matches(".*\\) [ZX] .*")) {
						count++;
					}
				}
				catch (IOException ex) {
					// gone or not ours
				}
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		return count;
	}

	@FunctionalInterface
	private interface Work {

		Object run() throws Exception;

	}

}

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
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.bench.Knobs;
import dev.mcpstdio.bench.transport.Connection.Side;
import dev.mcpstdio.bench.transport.PairedRounds.Ratios;
import dev.mcpstdio.bench.transport.PairedRounds.Round;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/**
 * mcp-stdio's transport against the MCP SDK's stdio transport, same server, same client.
 *
 * @author mcp-stdio authors
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class TransportBenchmark {

	private static final int MIB = 1024 * 1024;

	private static final ExecutorService RAW_WRITER = Executors.newSingleThreadExecutor(Results::daemon);

	private final Results results = new Results();

	private final EchoServers servers = new EchoServers(Knobs.integer("bench.transport.servers", 20));

	private final String exitNowScript;

	TransportBenchmark() throws Exception {
		this.exitNowScript = Path.of(TransportBenchmark.class.getResource("/exit-now-server.sh").toURI()).toString();
	}

	/**
	 * Run the scenarios (round trip, throughput and the raw pipe floor, shutdown,
	 * start-up, cost at rest, field soak, observations on and off) and print a Markdown
	 * table; see docs/benchmarks.md.
	 * @param args none
	 * @throws Exception if a scenario could not run
	 */
	public static void main(String[] args) throws Exception {
		TransportBenchmark benchmark = new TransportBenchmark();
		String only = Knobs.string("bench.transport.scenarios",
				"roundtrip,throughput,shutdown,startup,rest,soak,observations");
		for (String scenario : only.split(",")) {
			System.out.println("== " + scenario);
			switch (scenario.trim()) {
				case "roundtrip" -> benchmark.roundTrip();
				case "throughput" -> benchmark.throughput();
				case "shutdown" -> new ShutdownScenario(benchmark.results, benchmark.servers,
						Knobs.integer("bench.shutdown.rounds", 5), Knobs.integer("bench.shutdown.bystanders", 0))
					.run();
				case "startup" -> new StartupScenario(benchmark.results, benchmark.servers).run();
				case "rest" -> new RestScenario(benchmark.results, benchmark.servers).run();
				case "soak" -> benchmark.soak();
				case "observations" -> benchmark.observations();
				default -> throw new IllegalArgumentException("unknown scenario " + scenario);
			}
		}
		benchmark.results.counts("all scenarios",
				"processes left 5 s after a scenario ended, killed by pid by the harness (both sides together)",
				Long.toString(Leftovers.total()), "-");
		String table = benchmark.results.table();
		System.out.println();
		System.out.println(table);
		Path out = Path.of(System.getProperty("bench.transport.out", "target/transport-results.md"));
		Files.createDirectories(out.toAbsolutePath().getParent());
		Files.writeString(out, table);
		System.out.println("Written to " + out.toAbsolutePath());
		// daemon threads of hung workers, if any, must not keep the JVM
		System.exit(0);
	}

	// 1. round trip

	/**
	 * The round trip of a 100-byte echo through Spring AI's client over each transport,
	 * in one application: both warmed until the JIT is quiet, then rounds of ours and of
	 * the SDK's back to back, one ratio per pair of rounds, so that what else runs on the
	 * machine weighs on both sides of each ratio alike; then the same with 8 threads.
	 */
	private void roundTrip() throws Exception {
		int minWarmup = Knobs.integer("bench.rt.warmup", 5000);
		int maxWarmup = Knobs.integer("bench.rt.maxWarmup", 80000);
		int calls = Knobs.integer("bench.rt.calls", 40000);
		int rounds = Knobs.integer("bench.rt.rounds", 40);
		int perThread = Knobs.integer("bench.rt.parallelCalls", 1000);
		int parallelRounds = Knobs.integer("bench.rt.parallelRounds", 10);
		String text = "x".repeat(100);
		Markers markers = new Markers();
		try (ClientContext application = ClientContext.start(this.servers.command("mcp"), markers, true, true)) {
			McpSyncClient ours = application.client(ClientContext.OURS);
			McpSyncClient theirs = application.client(ClientContext.SDK);
			Runnable[] sides = { () -> echoCall(ours, text), () -> echoCall(theirs, text) };
			int warmed = warmUp(sides, minWarmup, maxWarmup);
			long compilingBefore = JitCpu.millis();
			PairedRounds sequential = PairedRounds.sequential(rounds, calls / rounds, sides);
			long compiling = JitCpu.millis() - compilingBefore;
			PairedRounds parallel = PairedRounds.parallel(parallelRounds, 8, perThread, sides);
			System.out.printf(Locale.ROOT,
					"round trip: %d warm-up calls per side; the JIT compiler threads used %d ms of CPU during the %d measured calls%n",
					warmed, compiling, sequential.calls(0) + sequential.calls(1));
			String group = "1. round trip, 100 B echo";
			roundTripRows(group, sequential, parallel, "<= 0.85", "<= 1.0");
			this.results.counts(group, "tools/call observed in mcp_client_operation_duration_seconds (ours)",
					"%.0f".formatted(application.observedCalls("echo")), "-");
		}
		Leftovers.after(markers, "round trip");
	}

	/**
	 * Print and add the round trip's rows: each side's figure over all its calls, and the
	 * median of the ratios of the pairs of rounds with their spread.
	 */
	private void roundTripRows(String group, PairedRounds sequential, PairedRounds parallel, String medianTarget,
			String p99Target) {
		Ratios median = sequential.ratios(Round::medianMillis);
		Ratios p99 = sequential.ratios(Round::p99Millis);
		Ratios rate = sequential.ratios(Round::rate);
		Stats ours = sequential.pooled(0);
		Stats theirs = sequential.pooled(1);
		System.out.printf(Locale.ROOT, "median: ours %.4f ms, theirs %.4f ms, paired ratio %s%n", ours.medianMillis(),
				theirs.medianMillis(), median);
		System.out.printf(Locale.ROOT, "p99: ours %.4f ms, theirs %.4f ms, paired ratio %s%n", ours.p99Millis(),
				theirs.p99Millis(), p99);
		System.out.printf(Locale.ROOT, "calls/s: ours %.0f, theirs %.0f, paired ratio %s; failed %d / %d%n",
				sequential.pooledRate(0), sequential.pooledRate(1), rate, sequential.failed(0), sequential.failed(1));
		String calls = "n=" + ours.count() + " a side, " + sequential.ratios(Round::rate).values().length
				+ " pairs of rounds";
		this.results.paired(group, "median latency (" + calls + ")", ours.medianMillis(), theirs.medianMillis(), "ms",
				median, medianTarget);
		this.results.paired(group, "p99 latency (of each round for the ratio)", ours.p99Millis(), theirs.p99Millis(),
				"ms", p99, p99Target);
		this.results.paired(group, "calls/s, 1 thread", sequential.pooledRate(0), sequential.pooledRate(1), "calls/s",
				rate, "info");
		if (sequential.failed(0) + sequential.failed(1) > 0) {
			this.results.counts(group, "calls failed, 1 thread", Long.toString(sequential.failed(0)),
					sequential.failed(1) + " (" + sequential.firstError(1) + ")");
		}
		if (parallel == null) {
			return;
		}
		Ratios parallelRate = parallel.ratios(Round::rate);
		System.out.printf(Locale.ROOT,
				"8 threads: ours %.0f calls/s (%d of %d failed), theirs %.0f (%d of %d failed), " + "paired ratio %s%n",
				parallel.pooledRate(0), parallel.failed(0), parallel.calls(0), parallel.pooledRate(1),
				parallel.failed(1), parallel.calls(1), parallelRate);
		this.results.paired(group,
				"successful calls/s, 8 threads (" + parallel.ratios(Round::rate).values().length + " pairs of rounds)",
				parallel.pooledRate(0), parallel.pooledRate(1), "calls/s", parallelRate, ">= 1.0");
		this.results.counts(group, "calls failed of " + parallel.calls(0) + ", 8 threads", failures(parallel, 0),
				failures(parallel, 1));
	}

	private static String failures(PairedRounds rounds, int side) {
		long failed = rounds.failed(side);
		return (failed > 0) ? failed + " (" + rounds.firstError(side) + ")" : "0";
	}

	/**
	 * Call both sides in alternating batches until the JIT compiler is done with the call
	 * path. After 5 000 calls a side, C2 still took 2.4 s of CPU while 20 000 more calls
	 * took 3.7 s, so a tail measured then was the compiler's share of the 2 cores, not
	 * the transport's. Quiet means two batches in a row in which the compiler threads
	 * used at most one clock tick of CPU: one long compilation can span a batch.
	 * @return the calls made per side
	 */
	private static int warmUp(Runnable[] sides, int min, int max) {
		int batch = 1000;
		int calls = 0;
		int quietBatches = 0;
		long compiled = JitCpu.millis();
		while (calls < max) {
			for (Runnable side : sides) {
				for (int i = 0; i < batch; i++) {
					side.run();
				}
			}
			calls += batch;
			long now = JitCpu.millis();
			quietBatches = (now - compiled <= 10) ? quietBatches + 1 : 0;
			compiled = now;
			if (calls >= min && quietBatches >= 2) {
				break;
			}
		}
		return calls;
	}

	// 7. the per-request observations, on and off

	/**
	 * The round trip of mcp-stdio's transport in two applications, one with the
	 * observations as the auto-configuration sets them up (the default) and one with
	 * {@code mcp.stdio.observations.enabled=false}, measured like the round trip: both
	 * warmed until the JIT is quiet, then in pairs of rounds.
	 */
	private void observations() throws Exception {
		int minWarmup = Knobs.integer("bench.rt.warmup", 5000);
		int maxWarmup = Knobs.integer("bench.rt.maxWarmup", 80000);
		int calls = Knobs.integer("bench.rt.calls", 40000);
		int rounds = Knobs.integer("bench.rt.rounds", 40);
		String text = "x".repeat(100);
		Markers markers = new Markers();
		try (ClientContext on = ClientContext.start(this.servers.command("mcp"), markers, false, true);
				ClientContext off = ClientContext.start(this.servers.command("mcp"), markers, false, false)) {
			McpSyncClient observed = on.client(ClientContext.OURS);
			McpSyncClient plain = off.client(ClientContext.OURS);
			Runnable[] sides = { () -> echoCall(observed, text), () -> echoCall(plain, text) };
			int warmed = warmUp(sides, minWarmup, maxWarmup);
			PairedRounds paired = PairedRounds.sequential(rounds, calls / rounds, sides);
			System.out.printf(Locale.ROOT,
					"observations: %d warm-up calls each; on: %.0f tools/call observed, off: %.0f%n", warmed,
					on.observedCalls("echo"), off.observedCalls("echo"));
			String group = "7. observations on (ours column) / off (theirs column), 100 B echo, both mcp-stdio";
			roundTripRows(group, paired, null, "<= 1.05", "info");
			this.results.counts(group, "tools/call in mcp_client_operation_duration_seconds",
					"%.0f".formatted(on.observedCalls("echo")), "%.0f".formatted(off.observedCalls("echo")));
		}
		Leftovers.after(markers, "observations");
	}

	private static void echoCall(McpSyncClient client, String text) {
		CallToolResult result = client
			.callTool(CallToolRequest.builder("echo").arguments(Map.of("text", text)).build());
		String answer = ((TextContent) result.content().get(0)).text();
		if (answer.length() != text.length()) {
			throw new IllegalStateException("echo answered " + answer.length() + " chars for " + text.length());
		}
	}

	// 2. throughput

	private void throughput() throws Exception {
		int warmup = Knobs.integer("bench.tp.warmup", 10);
		int iterations = Knobs.integer("bench.tp.iterations", 48);
		int rounds = Knobs.integer("bench.tp.rounds", 8);
		String text = "y".repeat(MIB);
		Markers markers = new Markers();
		PairedRounds paired;
		try (ClientContext application = ClientContext.start(this.servers.command("mcp"), markers, true, true)) {
			McpSyncClient ours = application.client(ClientContext.OURS);
			McpSyncClient theirs = application.client(ClientContext.SDK);
			Runnable[] sides = { () -> echoCall(ours, text), () -> echoCall(theirs, text) };
			for (Runnable side : sides) {
				for (int i = 0; i < warmup; i++) {
					side.run();
				}
			}
			// one echo is 1 MiB of payload: calls/s is MiB/s
			paired = PairedRounds.sequential(rounds, iterations / rounds, sides);
		}
		Leftovers.after(markers, "throughput");
		double ours = paired.pooledRate(0);
		double theirs = paired.pooledRate(1);
		Ratios ratios = paired.ratios(Round::rate);
		System.out.printf(Locale.ROOT, "ours %.1f MiB/s, theirs %.1f MiB/s, paired ratio %s%n", ours, theirs, ratios);
		String payload = "y".repeat(MIB);
		double nodeFloor = rawFloor(this.servers.command("raw"), payload, warmup, iterations);
		double catFloor = rawFloor(List.of(Connection.executable("cat")), payload, warmup, iterations);
		// the same tools/call line the clients send, answered by the same MCP server;
		// this side only writes and reads bytes: the floor of the server's MCP JSON
		String call = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
				+ "\"arguments\":{\"text\":\"" + payload + "\"}}}";
		double mcpFloor = rawFloor(this.servers.command("mcp"), call, warmup, iterations);
		System.out.printf(Locale.ROOT, "raw floor: node echo %.1f MiB/s, cat %.1f MiB/s, node MCP server %.1f MiB/s%n",
				nodeFloor, catFloor, mcpFloor);
		String group = "2. throughput, 1 MiB echo";
		this.results.paired(group, "MiB/s echoed (n=" + paired.calls(0) + " a side, " + rounds + " pairs of rounds)",
				ours, theirs, "MiB/s", ratios, ">= 1.0");
		this.results.floor(group, "raw pipe floor: same node server echoing lines, no MCP", nodeFloor, ours, theirs);
		this.results.floor(group, "raw pipe floor: cat", catFloor, ours, theirs);
		this.results.floor(group, "floor with the server's MCP JSON: same tools/call line to the same node MCP server, "
				+ "answer read as bytes, no MCP client", mcpFloor, ours, theirs);
	}

	/**
	 * MiB/s of 1 MiB payloads echoed over a plain ProcessBuilder pipe, no MCP client: one
	 * line written, one line read back as bytes, nothing parsed on this side.
	 */
	private double rawFloor(List<String> command, String line, int warmup, int iterations) throws Exception {
		Markers markers = new Markers();
		ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
		builder.environment().put(Markers.VARIABLE, markers.value());
		Process process = builder.start();
		byte[] bytes = (line + "\n").getBytes(StandardCharsets.US_ASCII);
		byte[] buffer = new byte[64 * 1024];
		double rate;
		try (OutputStream out = process.getOutputStream(); InputStream in = process.getInputStream()) {
			for (int i = 0; i < warmup; i++) {
				rawEcho(out, in, bytes, buffer);
			}
			long begin = System.nanoTime();
			for (int i = 0; i < iterations; i++) {
				rawEcho(out, in, bytes, buffer);
			}
			rate = iterations / ((System.nanoTime() - begin) / 1e9);
		}
		if (!process.waitFor(10, TimeUnit.SECONDS)) {
			process.destroyForcibly();
		}
		Leftovers.after(markers, "raw floor " + command.get(command.size() - 1));
		return rate;
	}

	private static void rawEcho(OutputStream out, InputStream in, byte[] line, byte[] buffer) throws Exception {
		// write on another thread: a server like cat echoes while it reads, and both
		// pipes hold only 64 KiB
		Future<?> write = RAW_WRITER.submit(() -> {
			out.write(line);
			out.flush();
			return null;
		});
		// the answer is one line, and the payload holds no newline: read until one ends
		// a chunk
		long read = 0;
		while (true) {
			int n = in.read(buffer, 0, buffer.length);
			if (n < 0) {
				throw new IOException("EOF after " + read + " bytes");
			}
			read += n;
			if (buffer[n - 1] == '\n') {
				break;
			}
		}
		write.get(10, TimeUnit.SECONDS);
		if (read < MIB) {
			throw new IOException("the answer has " + read + " bytes, less than the payload");
		}
	}

	// 5. field soak

	private void soak() throws Exception {
		long seconds = Knobs.longValue("bench.soak.seconds", 180);
		int workers = Knobs.integer("bench.soak.workers", 16);
		Map<Side, Soak.Outcome> outcomes = new HashMap<>();
		for (Side side : Side.values()) {
			Markers markers = new Markers();
			Soak.Outcome outcome = new Soak(side, List.of(Connection.executable("sh"), this.exitNowScript), markers,
					workers, seconds)
				.run();
			int killed = Leftovers.after(markers, side + " soak");
			outcomes.put(side, outcome);
			System.out.println(side.label() + ": " + outcome + ", leftovers killed " + killed);
		}
		Soak.Outcome ours = outcomes.get(Side.OURS);
		Soak.Outcome theirs = outcomes.get(Side.THEIRS);
		String group = "5. field soak, " + workers + " workers, " + seconds + " s";
		this.results.rate(group, "connects completed", ours.completed(), theirs.completed(), "", "info");
		this.results.counts(group, "workers hung (> 30 s in one connect/send/close)", Integer.toString(ours.hung()),
				Integer.toString(theirs.hung()));
		this.results.counts(group, "errors that do not name the exit / all errors",
				ours.hidingErrors() + " / " + ours.errors(), theirs.hidingErrors() + " / " + theirs.errors());
		this.results.counts(group, "example error", ours.example(), theirs.example());
	}

}

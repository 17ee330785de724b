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

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.bench.transport.Connection.Side;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * The transport benchmark's shutdown scenario: {@code bench.transport.servers} servers
 * (20), closed by a Spring context with the starter, or by as many SDK clients at once,
 * timed until their last process is gone.
 *
 * @author mcp-stdio authors
 */
final class ShutdownScenario {

	private final Results results;

	private final EchoServers servers;

	private final int rounds;

	private final int bystanders;

	/**
	 * Create the scenario.
	 * @param results where its rows go
	 * @param servers the servers it starts
	 * @param rounds rounds per side, each side first in every other one
	 * @param bystanders sleeping processes started beside it: the stop reads every
	 * process of the machine once, so its cost grows with them
	 */
	ShutdownScenario(Results results, EchoServers servers, int rounds, int bystanders) {
		this.results = results;
		this.servers = servers;
		this.rounds = rounds;
		this.bystanders = bystanders;
	}

	/**
	 * Run it: each mode, rounds of ours and of the SDK's, each side first in every other
	 * round.
	 * @throws Exception if a round could not run
	 */
	void run() throws Exception {
		try (Bystanders standing = new Bystanders(this.bystanders)) {
			shutdown(this.rounds, (this.bystanders > 0) ? ", " + this.bystanders + " other processes sleeping" : "");
		}
	}

	private void shutdown(int rounds, String beside) throws Exception {
		for (String mode : List.of("mcp", "ignore-eof")) {
			String group = "3. shutdown, " + this.servers.count()
					+ (mode.equals("mcp") ? " servers exiting on stdin EOF" : " servers ignoring stdin EOF") + beside;
			List<Double> oursMillis = new ArrayList<>();
			List<Double> theirsMillis = new ArrayList<>();
			int[] left = new int[2];
			int[] killed = new int[2];
			for (int round = 0; round < rounds; round++) {
				// Each side goes first in every other round: the first shutdown of a JVM
				// runs colder code than the second
				boolean oursFirst = round % 2 == 0;
				for (int turn = 0; turn < 2; turn++) {
					boolean ours = (turn == 0) == oursFirst;
					ShutdownRun run = ours ? shutdownOurs(mode) : shutdownTheirs(mode);
					(ours ? oursMillis : theirsMillis).add(run.millis());
					left[ours ? 0 : 1] += run.left();
					killed[ours ? 0 : 1] += run.killed();
				}
			}
			double ours = median(oursMillis);
			double theirs = median(theirsMillis);
			System.out.printf(Locale.ROOT,
					"%s: ours median %.0f ms %s (left when close returned %d, killed after 20 s %d); SDK median %.0f ms %s (left %d, killed %d)%n",
					mode, ours, millis(oursMillis), left[0], killed[0], theirs, millis(theirsMillis), left[1],
					killed[1]);
			String target = mode.equals("mcp") ? "ours < 300 ms" : "ours < 2 s + 2 s + 300 ms";
			this.results.time(group, "wall time from close to the last process gone, median of " + rounds + " rounds",
					ours, theirs, "ms", target);
			this.results.counts(group,
					"processes alive when close returned / killed by the harness after 20 s, all rounds",
					left[0] + " / " + killed[0], left[1] + " / " + killed[1]);
		}
	}

	/** Ours: a Spring context with the starter, servers configured by properties. */
	private ShutdownRun shutdownOurs(String mode) throws Exception {
		Markers markers = new Markers();
		ConfigurableApplicationContext context = this.servers.context(mode, markers);
		return measure(markers, "ours shutdown " + mode, context::close);
	}

	/** Theirs: one SDK client per server, closeGracefully() on each, in parallel. */
	private ShutdownRun shutdownTheirs(String mode) throws Exception {
		Markers markers = new Markers();
		List<Connection> connections = this.servers.openInitialized(Side.THEIRS, mode, markers);
		return measure(markers, "SDK shutdown " + mode, () -> closeGracefully(connections));
	}

	private void closeGracefully(List<Connection> connections) throws InterruptedException {
		ExecutorService executor = Executors.newFixedThreadPool(this.servers.count(), Results::daemon);
		try {
			List<Callable<Void>> closes = new ArrayList<>();
			for (Connection connection : connections) {
				closes.add(() -> {
					connection.client().closeGracefully();
					return null;
				});
			}
			executor.invokeAll(closes, 30, TimeUnit.SECONDS);
		}
		finally {
			executor.shutdownNow();
		}
	}

	/**
	 * Measure one shutdown: once every server is up, the time from the close to the last
	 * process seen before it gone, and what is left. The close runs also when the servers
	 * did not all come up, so that none is left running.
	 * @param markers the run's markers
	 * @param label names the run in the leftovers' report
	 * @param close closes the servers
	 * @return the run
	 * @throws Exception if the servers did not come up or the close failed
	 */
	private ShutdownRun measure(Markers markers, String label, Close close) throws Exception {
		Map<Long, String> started;
		try {
			EchoServers.awaitAlive(markers, this.servers.count());
			started = markers.started();
		}
		catch (Exception | Error ex) {
			close.run();
			throw ex;
		}
		long begin = System.nanoTime();
		close.run();
		int leftAtClose = markers.aliveOf(started);
		long gone = markers.awaitGone(started, 20_000);
		double millis = (gone < 0) ? -1 : (System.nanoTime() - begin) / 1e6;
		// a process forked during the stop is not among those watched: a look at all,
		// once the figure is taken
		int left = Math.max(leftAtClose, markers.alive().size());
		return new ShutdownRun(millis, left, Leftovers.after(markers, label));
	}

	/** Closes the servers of a run. */
	@FunctionalInterface
	private interface Close {

		void run() throws Exception;

	}

	/** The median, a run whose processes never went (-1) counting as the slowest. */
	private static double median(List<Double> values) {
		List<Double> sorted = new ArrayList<>();
		for (double value : values) {
			sorted.add((value < 0) ? Double.POSITIVE_INFINITY : value);
		}
		sorted.sort(null);
		return sorted.get(sorted.size() / 2);
	}

	private static String millis(List<Double> values) {
		List<String> formatted = new ArrayList<>();
		for (double value : values) {
			formatted.add(String.format(Locale.ROOT, "%.0f", value));
		}
		return "(" + String.join(", ", formatted) + ")";
	}

	/** One shutdown: its wall time, and what was left. */
	private record ShutdownRun(double millis, int left, int killed) {

	}

}

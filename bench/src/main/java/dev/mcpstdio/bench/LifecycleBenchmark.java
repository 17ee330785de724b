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

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Prints the lifecycle figures the docs quote, measured with the test suite's fixtures.
 *
 * @author mcp-stdio authors
 */
public final class LifecycleBenchmark {

	private LifecycleBenchmark() {
	}

	/**
	 * Measure parallel start, five servers stopped alone and together, SIGTERM to a JVM,
	 * {@code kill -9} of a JVM under the orphan guard, the start-send-stop race, and the
	 * time from a server's death to the caller's error (their tests assert bounds and
	 * print nothing); print the figures and write them to {@code bench.lifecycle.out}.
	 * @param args none
	 * @throws Exception if a scenario could not run
	 */
	public static void main(String[] args) throws Exception {
		String scenarios = Knobs.string("bench.lifecycle.scenarios", "start,stop,sigterm,guard,race,death");
		List<String> figures = new ArrayList<>();
		for (String scenario : scenarios.split(",")) {
			System.out.println("== " + scenario);
			List<String> lines = switch (scenario.trim()) {
				case "start" -> LifecycleFigures.start();
				case "stop" -> LifecycleFigures.stop();
				case "sigterm" -> LifecycleFigures.sigterm();
				case "guard" -> GuardAndRaceFigures.killToLastProcessGone(Knobs.integer("bench.guard.runs", 10));
				case "race" -> GuardAndRaceFigures.race(Knobs.integer("bench.race.rounds", 200));
				case "death" -> DeathToErrorFigures.measure(Knobs.integer("bench.death.runs", 5),
						Knobs.integer("bench.death.sdkRuns", 3));
				default -> throw new IllegalArgumentException("unknown scenario " + scenario);
			};
			lines.forEach(System.out::println);
			figures.addAll(lines);
		}
		Path out = Path.of(System.getProperty("bench.lifecycle.out", "target/lifecycle-results.md"));
		Files.createDirectories(out.toAbsolutePath().getParent());
		Files.write(out, figures);
		System.out.println("Written to " + out.toAbsolutePath());
		// threads of the clients and servers, if any hang, must not keep the JVM
		System.exit(0);
	}

}

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

import java.util.List;
import java.util.Locale;
import java.util.Map;

import static dev.mcpstdio.bench.DemandBenchmark.LAZY_SERVERS;
import static dev.mcpstdio.bench.DemandBenchmark.IDLE_TIMEOUT;
import static dev.mcpstdio.bench.DemandBenchmark.SERVERS;
import static dev.mcpstdio.bench.DemandBenchmark.CHURN_STEP;
import static dev.mcpstdio.bench.DemandBenchmark.CHURN_USERS;
import static dev.mcpstdio.bench.DemandBenchmark.USERS;

/**
 * The demand benchmark's table: the figures its runs printed, medians and spreads by
 * configuration.
 *
 * @author mcp-stdio authors
 */
final class DemandTable {

	private DemandTable() {
	}

	static String table(Map<String, List<Double>> figures, List<String> intervals) {
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

	static void row(StringBuilder table, Map<String, List<Double>> figures, String label, String key, String unit) {
		table.append("| ").append(label).append(" | ").append(summary(figures.get("eager." + key), unit));
		table.append(" | ").append(summary(figures.get("lazy." + key), unit)).append(" |\n");
	}

	static String summary(List<Double> values, String unit) {
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

	static String format(double value) {
		if (value >= 100 || value == Math.rint(value)) {
			return String.format(Locale.ROOT, "%.0f", value);
		}
		return String.format(Locale.ROOT, (value >= 10) ? "%.1f" : "%.2f", value);
	}

}

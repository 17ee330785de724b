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

/**
 * The rows of the results table: ours, theirs and the ratio ours / theirs.
 *
 * @author mcp-stdio authors
 */
final class Results {

	private final List<String> rows = new ArrayList<>();

	void time(String group, String metric, double ours, double theirs, String unit, String target) {
		add(group, metric, format(ours, unit), format(theirs, unit), ratio(ours, theirs), target);
	}

	void rate(String group, String metric, double ours, double theirs, String unit, String target) {
		add(group, metric, format(ours, unit), format(theirs, unit), ratio(ours, theirs), target);
	}

	/**
	 * Add a row whose ratio is the median of the ratios of pairs of rounds, with their
	 * quartiles and range, and the ratio of the figures over all calls; each side's
	 * figure is over all its calls.
	 */
	void paired(String group, String metric, double ours, double theirs, String unit, PairedRounds.Ratios ratios,
			String target) {
		double[] values = ratios.values();
		String ratio = String.format(Locale.ROOT,
				"**%.2f** (quartiles %.2f-%.2f, range %.2f-%.2f, %d pairs; all calls pooled %s)", ratios.median(),
				Stats.quantile(values, 0.25), Stats.quantile(values, 0.75), Stats.quantile(values, 0),
				Stats.quantile(values, 1), values.length, ratio(ours, theirs));
		add(group, metric, format(ours, unit), format(theirs, unit), ratio, target);
	}

	void floor(String group, String metric, double floor, double ours, double theirs) {
		add(group, metric + " = " + format(floor, "MiB/s") + "; floor / client", format(floor / ours, "x"),
				format(floor / theirs, "x"), ratio(floor / ours, floor / theirs), "ours <= 2x");
	}

	void counts(String group, String metric, String ours, String theirs) {
		add(group, metric, ours, theirs, "", "");
	}

	private void add(String group, String metric, String ours, String theirs, String ratio, String target) {
		this.rows.add("| "
				+ String.join(" | ", escape(group), escape(metric), escape(ours), escape(theirs), ratio, escape(target))
				+ " |");
	}

	String table() {
		StringBuilder table = new StringBuilder();
		table.append(
				"| scenario | measure | mcp-stdio (ours) | SDK StdioClientTransport (theirs) | ratio ours/theirs | target |\n");
		table.append("| --- | --- | --- | --- | --- | --- |\n");
		this.rows.forEach((row) -> table.append(row).append('\n'));
		return table.toString();
	}

	private static String format(double value, String unit) {
		if (value < 0) {
			return "n/a (not all gone within 20 s)";
		}
		String number = (value >= 100) ? String.format(Locale.ROOT, "%.0f", value)
				: String.format(Locale.ROOT, "%.3g", value);
		return unit.isEmpty() ? number : number + " " + unit;
	}

	private static String ratio(double ours, double theirs) {
		if (ours < 0 || theirs <= 0) {
			return "n/a";
		}
		return String.format(Locale.ROOT, "%.2f", ours / theirs);
	}

	private static String escape(String text) {
		return text.replace("|", "\\|").replace("\n", " ");
	}

	static Thread daemon(Runnable runnable) {
		Thread thread = new Thread(runnable, "bench-worker");
		thread.setDaemon(true);
		return thread;
	}

}

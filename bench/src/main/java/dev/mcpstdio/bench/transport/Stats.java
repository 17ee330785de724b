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

import java.util.Arrays;

/**
 * Order statistics over nanosecond samples.
 *
 * @author mcp-stdio authors
 */
final class Stats {

	private final long[] sorted;

	Stats(long[] nanos) {
		this.sorted = nanos.clone();
		Arrays.sort(this.sorted);
	}

	double medianMillis() {
		return this.sorted[this.sorted.length / 2] / 1e6;
	}

	double p99Millis() {
		return this.sorted[(int) Math.ceil(this.sorted.length * 0.99) - 1] / 1e6;
	}

	int count() {
		return this.sorted.length;
	}

	/**
	 * Return a quantile of values, interpolated between the two nearest ranks (so that
	 * the median of an even count is the mean of the middle two).
	 * @param values the values
	 * @param q from 0 (the smallest) to 1 (the largest)
	 * @return the value
	 */
	static double quantile(double[] values, double q) {
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		double rank = q * (sorted.length - 1);
		int below = (int) Math.floor(rank);
		int above = Math.min(below + 1, sorted.length - 1);
		return sorted[below] + (rank - below) * (sorted[above] - sorted[below]);
	}

}

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

package dev.mcpstdio.actuate;

import static org.assertj.core.api.Assertions.fail;

/**
 * Reads sample values out of a Prometheus text scrape.
 *
 * @author mcp-stdio authors
 */
final class Prometheus {

	private Prometheus() {
	}

	/**
	 * Return the value of one sample.
	 * @param scrape the scrape
	 * @param series the metric name with its labels exactly as they are written
	 * @return the value
	 */
	static double value(String scrape, String series) {
		for (String line : scrape.split("\n")) {
			if (line.startsWith(series + " ")) {
				return Double.parseDouble(line.substring(series.length() + 1).trim().split(" ")[0]);
			}
		}
		return fail("No sample " + series + " in the scrape:\n" + scrape);
	}

}

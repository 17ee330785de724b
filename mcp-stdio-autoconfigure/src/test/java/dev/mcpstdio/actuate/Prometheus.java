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

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import dev.mcpstdio.test.Await;

import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;

import static org.assertj.core.api.Assertions.assertThat;
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
	 * Scrape the application's {@code /actuator/prometheus} over HTTP.
	 * @param client the client of the application
	 * @return the scrape, in the text format
	 */
	static String scrape(RestTestClient client) {
		return client.get()
			.uri("/actuator/prometheus")
			.accept(MediaType.TEXT_PLAIN)
			.exchange()
			.expectStatus()
			.isOk()
			.returnResult(String.class)
			.getResponseBody();
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

	/**
	 * Scrape until a sample has a value, bounded: a fixture forks helpers for each
	 * message it reads, and those count while they live.
	 * @param scrape takes a scrape
	 * @param series the metric name with its labels exactly as they are written
	 * @param expected the value
	 */
	static void await(Supplier<String> scrape, String series, double expected) {
		double value = Await.within(Duration.ofSeconds(10))
			.every(Duration.ofMillis(50))
			.value(() -> value(scrape.get(), series), (read) -> read == expected);
		assertThat(value).as(series).isEqualTo(expected);
	}

	/**
	 * Return the samples of one metric with their labels, in the order of the scrape.
	 * @param scrape the scrape
	 * @param metric the metric name, such as
	 * {@code mcp_client_operation_duration_seconds_bucket}
	 * @return its samples
	 */
	static List<Sample> samples(String scrape, String metric) {
		List<Sample> samples = new ArrayList<>();
		for (String line : scrape.split("\n")) {
			if (!line.startsWith(metric + "{")) {
				continue;
			}
			Map<String, String> labels = new LinkedHashMap<>();
			int at = metric.length() + 1;
			while (line.charAt(at) != '}') {
				int equals = line.indexOf('=', at);
				String name = line.substring(at, equals);
				StringBuilder value = new StringBuilder();
				int i = equals + 2;
				while (line.charAt(i) != '"') {
					if (line.charAt(i) == '\\') {
						i++;
					}
					value.append(line.charAt(i++));
				}
				labels.put(name, value.toString());
				at = i + 1;
				if (line.charAt(at) == ',') {
					at++;
				}
			}
			samples.add(new Sample(labels, Double.parseDouble(line.substring(at + 1).trim().split(" ")[0])));
		}
		return samples;
	}

	/**
	 * One sample of a scrape.
	 *
	 * @param labels its labels, empty values included
	 * @param value its value
	 */
	record Sample(Map<String, String> labels, double value) {

		boolean has(Map<String, String> wanted) {
			return this.labels.entrySet().containsAll(wanted.entrySet());
		}

	}

}

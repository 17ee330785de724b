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

import java.util.ArrayList;
import java.util.List;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.config.MeterFilter;

/**
 * Gives every {@code mcp.client.*} meter of a Prometheus registry the same label names,
 * since its registry refuses a meter whose tag keys differ from those of the first meter
 * of its name while the conventions set some keys only where they apply. A missing key
 * gets an empty value, which Prometheus takes for an absent label
 * ({@code {error_type=""}} selects the successes); other registries get the attributes as
 * the conventions set them.
 *
 * @author mcp-stdio authors
 */
final class McpClientPrometheusLabels implements MeterFilter {

	/**
	 * The keys of {@code mcp.client.operation.duration}, as the default convention sets
	 * them.
	 */
	static final List<String> OPERATION_KEYS = List.of("server", "mcp.method.name", "gen_ai.tool.name",
			"gen_ai.prompt.name", "network.transport", "error.type");

	/** The keys of {@code mcp.client.session.duration}. */
	static final List<String> SESSION_KEYS = List.of("server", "network.transport", "error.type");

	@Override
	public Meter.Id map(Meter.Id id) {
		String name = id.getName();
		if (name.startsWith("mcp.client.operation.duration")) {
			// the timer, and the long task timer ".active" of the observation handler
			return complete(id, OPERATION_KEYS);
		}
		if (name.equals(McpClientSessionMetrics.NAME)) {
			return complete(id, SESSION_KEYS);
		}
		return id;
	}

	private static Meter.Id complete(Meter.Id id, List<String> keys) {
		List<Tag> missing = null;
		for (String key : keys) {
			if (id.getTag(key) == null) {
				if (missing == null) {
					missing = new ArrayList<>(keys.size());
				}
				missing.add(Tag.of(key, ""));
			}
		}
		return (missing != null) ? id.withTags(missing) : id;
	}

}

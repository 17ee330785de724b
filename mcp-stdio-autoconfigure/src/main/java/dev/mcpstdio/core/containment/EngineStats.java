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

package dev.mcpstdio.core.containment;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.mcpstdio.core.tree.ProcessTree;

/**
 * A container's figures as an engine's {@code stats} prints them: its processes and its
 * memory.
 *
 * @author mcp-stdio authors
 */
final class EngineStats {

	/** A size as the engines print it: {@code 1.5MiB}, {@code 600kB}, {@code 0B}. */
	private static final Pattern SIZE = Pattern.compile("([0-9.]+)\\s*(?:([kmgt])(i?)b|b?)");

	private EngineStats() {
	}

	/**
	 * Read {@code stats --format '{{.PIDs}}|{{.MemUsage}}'} output such as
	 * {@code 3|1.5MiB / 7.6GiB} (docker) or {@code 3|1.5MB / 8.2GB} (podman).
	 * @param text the output
	 * @return the figures, zero where unreadable
	 */
	static ProcessTree.Stats parse(String text) {
		String[] fields = text.split("\\|", 2);
		int processes = 0;
		try {
			processes = Integer.parseInt(fields[0].strip());
		}
		catch (NumberFormatException ex) {
			// "--" from an engine that does not count
		}
		return new ProcessTree.Stats(processes, (fields.length > 1) ? bytes(fields[1].split("/")[0].strip()) : 0);
	}

	private static long bytes(String size) {
		Matcher matcher = SIZE.matcher(size.toLowerCase(Locale.ROOT));
		try {
			if (!matcher.matches()) {
				return 0;
			}
			int power = (matcher.group(2) != null) ? "kmgt".indexOf(matcher.group(2)) + 1 : 0;
			int base = (matcher.group(3) != null && !matcher.group(3).isEmpty()) ? 1024 : 1000;
			return (long) (Double.parseDouble(matcher.group(1)) * Math.pow(base, power));
		}
		catch (NumberFormatException ex) {
			return 0;
		}
	}

}

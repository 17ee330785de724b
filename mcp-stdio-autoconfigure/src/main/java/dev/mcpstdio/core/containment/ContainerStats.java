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

/**
 * A container's processes and memory as its engine reports them.
 *
 * @param processes how many processes run in it
 * @param memoryBytes the memory it uses
 * @author mcp-stdio authors
 */
public record ContainerStats(int processes, long memoryBytes) {

	/**
	 * Read {@code stats --format '{{.PIDs}}|{{.MemUsage}}'} output such as
	 * {@code 3|1.5MiB / 7.6GiB} (docker) or {@code 3|1.5MB / 8.2GB} (podman).
	 * @param text the output
	 * @return the figures, zero where unreadable
	 */
	static ContainerStats parse(String text) {
		String[] fields = text.split("\\|", 2);
		int processes = 0;
		try {
			processes = Integer.parseInt(fields[0].strip());
		}
		catch (NumberFormatException ex) {
			// "--" from an engine that does not count
		}
		long memory = (fields.length > 1) ? bytes(fields[1].split("/")[0].strip()) : 0;
		return new ContainerStats(processes, memory);
	}

	static long bytes(String size) {
		int unit = 0;
		while (unit < size.length() && (Character.isDigit(size.charAt(unit)) || size.charAt(unit) == '.')) {
			unit++;
		}
		double number;
		try {
			number = Double.parseDouble(size.substring(0, unit));
		}
		catch (NumberFormatException ex) {
			return 0;
		}
		long factor = switch (size.substring(unit).strip().toLowerCase(Locale.ROOT)) {
			case "", "b" -> 1L;
			case "kb" -> 1000L;
			case "kib" -> 1L << 10;
			case "mb" -> 1000L * 1000;
			case "mib" -> 1L << 20;
			case "gb" -> 1000L * 1000 * 1000;
			case "gib" -> 1L << 30;
			case "tb" -> 1000L * 1000 * 1000 * 1000;
			case "tib" -> 1L << 40;
			default -> 0L;
		};
		return (long) (number * factor);
	}

}

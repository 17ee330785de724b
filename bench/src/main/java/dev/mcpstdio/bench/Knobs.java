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

import java.util.function.Function;

/**
 * Reads one knob of a harness (a {@code -Dbench.*} system property) and prints the value
 * the harness runs with, so that the output of a run says what it was run with. The
 * default is the one given here, the only place it is declared: {@code bench/pom.xml}
 * passes every knob through, blank unless set on the Maven command line, and a blank
 * value means the default. A value that does not parse stops the harness instead of
 * falling back to the default. Every knob must be read in the harness's main class with a
 * literal name (the {@code BenchmarkKnobsTests} of {@code mcp-stdio-autoconfigure}
 * compares them with the pom and with docs/benchmarks.md).
 *
 * @author mcp-stdio authors
 */
public final class Knobs {

	private Knobs() {
	}

	/**
	 * Read a whole number.
	 * @param name the property
	 * @param defaultValue the value when it is not set or blank
	 * @return the value
	 */
	public static int integer(String name, int defaultValue) {
		return read(name, defaultValue, Integer::valueOf);
	}

	/**
	 * Read a whole number that may be large.
	 * @param name the property
	 * @param defaultValue the value when it is not set or blank
	 * @return the value
	 */
	public static long longValue(String name, long defaultValue) {
		return read(name, defaultValue, Long::valueOf);
	}

	/**
	 * Read a text.
	 * @param name the property
	 * @param defaultValue the value when it is not set or blank
	 * @return the value
	 */
	public static String string(String name, String defaultValue) {
		return read(name, defaultValue, Function.identity());
	}

	private static <T> T read(String name, T defaultValue, Function<String, T> parse) {
		String given = System.getProperty(name);
		if (given == null || given.isBlank()) {
			System.out.println("knob " + name + "=" + defaultValue + " (default)");
			return defaultValue;
		}
		T value;
		try {
			value = parse.apply(given.trim());
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException(
					"-D" + name + "=" + given + " is not a whole number; leave it out for " + defaultValue, ex);
		}
		System.out.println("knob " + name + "=" + value + " (given)");
		return value;
	}

}

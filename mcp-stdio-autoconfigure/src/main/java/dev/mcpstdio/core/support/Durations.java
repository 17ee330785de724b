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

package dev.mcpstdio.core.support;

import java.time.Duration;

/**
 * Formats durations the way the configuration writes them, for messages and logs.
 *
 * @author mcp-stdio authors
 */
public final class Durations {

	private Durations() {
	}

	/**
	 * Format a duration as {@code 2s} when it is whole seconds, else as {@code 500ms}.
	 * @param duration the duration
	 * @return the text
	 */
	public static String format(Duration duration) {
		long millis = duration.toMillis();
		if (millis % 1000 == 0) {
			return (millis / 1000) + "s";
		}
		return millis + "ms";
	}

}

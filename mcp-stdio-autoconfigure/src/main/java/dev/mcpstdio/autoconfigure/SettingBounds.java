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

package dev.mcpstdio.autoconfigure;

import java.time.Duration;
import java.util.regex.Pattern;

import org.springframework.util.unit.DataSize;

/**
 * The upper bounds of the settings, checked before anything starts: a value beyond them
 * is a mistake (a unit typed wrong), and some would overflow or leave a server stuck.
 *
 * @author mcp-stdio authors
 */
final class SettingBounds {

	/** A start, npx downloading a package included. */
	static final Duration STARTUP_TIMEOUT = Duration.ofHours(1);

	/** One blocked write to a server's stdin. */
	static final Duration SEND_TIMEOUT = Duration.ofHours(1);

	/** Each shutdown step: a stop should fit in a shutdown phase. */
	static final Duration SHUTDOWN_STEP = Duration.ofMinutes(10);

	/** The window of {@code restart.max-restarts}. */
	static final Duration RESTART_WINDOW = Duration.ofDays(1);

	/** Either backoff between restarts. */
	static final Duration BACKOFF = Duration.ofHours(1);

	/** Restarts within one window. */
	static final int MAX_RESTARTS = 1000;

	/** How long a server may be idle before it is stopped. */
	static final Duration IDLE_TIMEOUT = Duration.ofDays(7);

	/** How often resource limits are checked. */
	static final Duration RESOURCE_CHECK_INTERVAL = Duration.ofHours(1);

	/** One call of a container engine's command-line interface. */
	static final Duration ENGINE_TIMEOUT = Duration.ofMinutes(10);

	/** One message: it is held in memory whole. */
	static final DataSize MAX_MESSAGE_SIZE = DataSize.ofMegabytes(256);

	/** Kept stderr lines, in memory for every server. */
	static final int STDERR_TAIL_LINES = 10_000;

	/** A server name: a bean name, a metric tag, a logger category and a property key. */
	static final Pattern NAME = Pattern.compile("(?!.*\\.\\.)[a-zA-Z0-9](?:[a-zA-Z0-9._-]{0,62}[a-zA-Z0-9])?");

	private SettingBounds() {
	}

	/**
	 * Return a duration the way it is configured, such as {@code 10m} or {@code 500ms}.
	 * @param duration the duration
	 * @return its text
	 */
	static String format(Duration duration) {
		if (duration.isNegative() || duration.isZero() || duration.getNano() % 1_000_000 != 0) {
			return duration.toString();
		}
		if (duration.getNano() != 0) {
			return (duration.getSeconds() < 1_000_000_000L) ? duration.toMillis() + "ms" : duration.toString();
		}
		long seconds = duration.getSeconds();
		long[] units = { 86_400, 3600, 60, 1 };
		String[] suffixes = { "d", "h", "m", "s" };
		int unit = 0;
		while (seconds % units[unit] != 0) {
			unit++;
		}
		return (seconds / units[unit]) + suffixes[unit];
	}

}

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

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The CPU time the JVM's JIT compiler threads have used, from {@code /proc/self/task}.
 * Unlike {@code CompilationMXBean}, which counts a compilation only once it ends, this
 * sees a long C2 compilation while it runs.
 *
 * @author mcp-stdio authors
 */
final class JitCpu {

	/** Linux's clock ticks per second for {@code stat}'s CPU times. */
	private static final long TICKS_PER_SECOND = 100;

	private JitCpu() {
	}

	/**
	 * Return the CPU time of the C1 and C2 compiler threads so far.
	 * @return milliseconds, at the 10 ms grain of the clock tick
	 */
	static long millis() {
		long ticks = 0;
		try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
			for (Path task : tasks) {
				ticks += compilerTicks(task);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return ticks * 1000 / TICKS_PER_SECOND;
	}

	private static long compilerTicks(Path task) throws IOException {
		String stat;
		try {
			stat = Files.readString(task.resolve("stat"));
		}
		catch (NoSuchFileException ex) {
			// the thread ended meanwhile
			return 0;
		}
		String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
		if (!name.startsWith("C1 CompilerThre") && !name.startsWith("C2 CompilerThre")) {
			return 0;
		}
		// after the name: state, then 10 fields up to utime (the 14th field) and stime
		String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
		return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
	}

}

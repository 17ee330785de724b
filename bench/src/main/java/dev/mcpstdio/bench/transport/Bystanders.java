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

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Sleeping processes that stand by while a scenario runs, so that it runs on a machine
 * with as many processes as a busy workstation has: what reads every process of the
 * machine costs in proportion. Each is a child of this JVM, ended by its own handle.
 *
 * @author mcp-stdio authors
 */
final class Bystanders implements AutoCloseable {

	private final List<Process> processes = new ArrayList<>();

	/**
	 * Start {@code count} sleeping processes.
	 * @param count how many
	 * @throws IOException if one cannot be started (those started are ended)
	 */
	Bystanders(int count) throws IOException {
		try {
			for (int i = 0; i < count; i++) {
				this.processes.add(new ProcessBuilder("sleep", "3600").redirectInput(new File("/dev/null"))
					.redirectOutput(ProcessBuilder.Redirect.DISCARD)
					.redirectError(ProcessBuilder.Redirect.DISCARD)
					.start());
			}
		}
		catch (IOException | RuntimeException ex) {
			close();
			throw ex;
		}
	}

	/** End every one, by its handle, and wait (bounded) until each is gone. */
	@Override
	public void close() {
		this.processes.forEach(Process::destroyForcibly);
		for (Process process : this.processes) {
			try {
				if (!process.waitFor(10, TimeUnit.SECONDS)) {
					throw new IllegalStateException("bystander " + process.pid() + " survived SIGKILL");
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
		this.processes.clear();
	}

}

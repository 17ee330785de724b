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

import java.util.List;
import java.util.Locale;

/**
 * The end of one call of a command, such as a container engine's.
 *
 * @param exitCode its exit code, -1 when it could not run or timed out
 * @param stdout what it wrote to stdout
 * @param stderr what it wrote to stderr
 * @param timedOut whether it was killed for taking too long
 * @author mcp-stdio authors
 */
record CommandOutput(int exitCode, String stdout, String stderr, boolean timedOut) {

	boolean ok() {
		return this.exitCode == 0;
	}

	List<String> lines() {
		return this.stdout.lines().filter((line) -> !line.isBlank()).map(String::strip).toList();
	}

	boolean noSuchContainer() {
		String text = this.stderr.toLowerCase(Locale.ROOT);
		return text.contains("no such container") || text.contains("no such object")
				|| text.contains("no container with name or id");
	}

	boolean notRunning() {
		String text = this.stderr.toLowerCase(Locale.ROOT);
		// docker: "... is not running"; podman: "can only kill running containers"
		return text.contains("not running") || text.contains("can only kill running")
				|| text.contains("state improper");
	}

	String error() {
		String text = this.stderr.strip();
		if (this.timedOut) {
			return "timed out" + (text.isEmpty() ? "" : ": " + text);
		}
		return text.isEmpty() ? "exit code " + this.exitCode : text;
	}

}

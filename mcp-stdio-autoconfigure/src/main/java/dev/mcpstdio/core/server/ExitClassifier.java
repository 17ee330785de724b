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

package dev.mcpstdio.core.server;

import java.util.List;
import java.util.Set;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * What mcp-stdio did to the process and saw of it, and so how its exit is told. The send
 * path, the stop and the exit read it concurrently: each fact is written once.
 *
 * @author mcp-stdio authors
 */
final class ExitClassifier {

	/** The application's variables the process did not get, for the exit's hint. */
	private final Set<String> withheldVariables;

	private final StdioServerSpec.Origin origin;

	volatile boolean stopRequested;

	volatile boolean stdinClosedByStop;

	volatile @Nullable String failure;

	/** Why mcp-stdio stops the process, when it is for a reason of its own. */
	volatile @Nullable ExitCause stopCause;

	volatile @Nullable String stopReason;

	/** Whether the process has written a message to stdout: it talks MCP. */
	volatile boolean spoke;

	/** The signal mcp-stdio sent to the root: 0, 15 or 9. */
	private volatile int rootSignal;

	ExitClassifier(Set<String> withheldVariables, StdioServerSpec.Origin origin) {
		this.withheldVariables = withheldVariables;
		this.origin = origin;
	}

	/** A signal was sent to the root: a SIGKILL is remembered over a SIGTERM. */
	void signalled(boolean kill) {
		if (this.rootSignal != 9) {
			this.rootSignal = kill ? 9 : 15;
		}
	}

	ExitCause classify(int code, boolean stdinClosing) {
		ExitCause requested = this.stopCause;
		if (this.stopRequested && requested != null) {
			// Whatever signal ended it, it ended because mcp-stdio stopped it for
			// this
			return requested;
		}
		if (this.rootSignal != 0) {
			return (this.rootSignal == 9) ? ExitCause.KILLED : ExitCause.TERMINATED;
		}
		if (this.stopRequested && code == 0 && (this.stdinClosedByStop || stdinClosing)) {
			return ExitCause.CLEAN;
		}
		return ExitCause.UNEXPECTED;
	}

	/**
	 * The failure seen, else the reason of a stop mcp-stdio made for a cause of its own.
	 */
	@Nullable String reason() {
		return (this.failure != null || !this.stopRequested) ? this.failure : this.stopReason;
	}

	/**
	 * The hint of an exit during start-up (before the process wrote a message) whose
	 * stderr names a variable the allow-list withheld, or a path its containment hides.
	 */
	@Nullable String startupHint(List<String> stderrTail) {
		return startupHint(stderrTail, (tail) -> null);
	}

	/**
	 * The hint of an exit during start-up, the variable's first, else the one
	 * {@code contained} gives (a path the sandbox hides).
	 */
	@Nullable String startupHint(List<String> stderrTail, Function<List<String>, @Nullable String> contained) {
		if (this.stopRequested || this.spoke) {
			return null;
		}
		String hint = ServerEnvironment.hint(this.withheldVariables, Set.of(), stderrTail, this.origin);
		return (hint != null) ? hint : contained.apply(stderrTail);
	}

}

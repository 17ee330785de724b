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

package dev.mcpstdio.core;

import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;

import org.jspecify.annotations.Nullable;

/**
 * What mcp-stdio did to one server process and saw of it (a stop and its cause, a
 * failure, the signal sent to its root, whether it spoke MCP), and so how its exit is
 * classified and explained. The send path, the stop and the exit read it concurrently:
 * each fact is a volatile field written once it is known.
 *
 * @author mcp-stdio authors
 */
final class ExitClassifier {

	/** The application's variables the process did not get, for the exit's hint. */
	private final Set<String> withheldVariables;

	private volatile boolean stopRequested;

	private volatile boolean stdinClosedByStop;

	private volatile @Nullable String failure;

	/** Why mcp-stdio stops the process, when it is for a reason of its own. */
	private volatile @Nullable ExitCause stopCause;

	/** What made mcp-stdio stop it, for the exit's message. */
	private volatile @Nullable String stopReason;

	/**
	 * Whether the process has written a message to stdout: it has started talking MCP.
	 */
	private volatile boolean spoke;

	/** The signal mcp-stdio sent to the root: 0, 15 or 9. */
	private volatile int rootSignal;

	/** Where the server was configured, for the hint. */
	private final ServerOrigin origin;

	ExitClassifier(Set<String> withheldVariables) {
		this(withheldVariables, ServerOrigin.of("server"));
	}

	ExitClassifier(Set<String> withheldVariables, ServerOrigin origin) {
		this.withheldVariables = withheldVariables;
		this.origin = origin;
	}

	boolean stopRequested() {
		return this.stopRequested;
	}

	/** A stop has begun: sends are refused from now on. */
	void requestStop() {
		this.stopRequested = true;
	}

	/**
	 * Return what went wrong when mcp-stdio treated the server as failed.
	 * @return the failure or {@code null}
	 */
	@Nullable String failure() {
		return this.failure;
	}

	void failed(String reason) {
		this.failure = reason;
	}

	/**
	 * Take the cause the exit of a stop about to begin gets.
	 * @param cause the cause, such as {@link ExitCause#IDLE}
	 * @param reason what made mcp-stdio stop it, or {@code null}
	 */
	void prepareStop(ExitCause cause, @Nullable String reason) {
		this.stopReason = reason;
		this.stopCause = cause;
	}

	/** The stop closed stdin and the process took it. */
	void stdinClosedByStop() {
		this.stdinClosedByStop = true;
	}

	/** The process wrote a message to stdout. */
	void spoke() {
		this.spoke = true;
	}

	/**
	 * A signal was sent to the root: a SIGKILL is remembered over a SIGTERM.
	 * @param kill whether it was SIGKILL
	 */
	void signalled(boolean kill) {
		if (this.rootSignal != 9) {
			this.rootSignal = kill ? 9 : 15;
		}
	}

	/**
	 * Classify an exit.
	 * @param code the exit code
	 * @param stdinClosing whether stdin is being closed, asked only for an exit code 0
	 * after a stop
	 * @return the cause
	 */
	ExitCause classify(int code, BooleanSupplier stdinClosing) {
		ExitCause requested = this.stopCause;
		if (this.stopRequested && requested != null) {
			// Whatever signal ended it, it ended because mcp-stdio stopped it for this
			return requested;
		}
		int signal = this.rootSignal;
		if (signal == 9) {
			return ExitCause.KILLED;
		}
		if (signal == 15) {
			return ExitCause.TERMINATED;
		}
		if (this.stopRequested && code == 0 && (this.stdinClosedByStop || stdinClosing.getAsBoolean())) {
			return ExitCause.CLEAN;
		}
		return ExitCause.UNEXPECTED;
	}

	/**
	 * Return why the process ended, for the exit's message: the failure seen, else the
	 * reason of a stop mcp-stdio made for a cause of its own.
	 * @return the reason or {@code null}
	 */
	@Nullable String reason() {
		return (this.failure != null || !this.stopRequested) ? this.failure : this.stopReason;
	}

	/**
	 * Explain an exit during start-up (before the process wrote a single message) whose
	 * stderr names a variable of the application that the allow-list withheld.
	 * @param stderrTail the last lines of stderr
	 * @return the hint or {@code null}
	 */
	@Nullable String startupHint(List<String> stderrTail) {
		if (this.stopRequested || this.spoke) {
			return null;
		}
		return WithheldVariableHint.hint(this.withheldVariables, Set.of(), stderrTail, this.origin).orElse(null);
	}

}

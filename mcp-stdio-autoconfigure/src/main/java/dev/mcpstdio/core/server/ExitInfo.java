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

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.McpServerExitedException;
import dev.mcpstdio.core.secrets.SecretSanitizer;
import org.jspecify.annotations.Nullable;

/**
 * How one process of an MCP server ended.
 *
 * @author mcp-stdio authors
 */
public final class ExitInfo {

	private static final String[] SIGNAL_NAMES = { null, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT",
			"SIGBUS", "SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM" };

	/** How many stderr lines an exception message quotes at most. */
	private static final int MESSAGE_STDERR_LINES = 10;

	private final String serverName;

	private final long pid;

	private final int exitCode;

	private final ExitCause cause;

	private final List<String> stderrTail;

	private final @Nullable String failure;

	private final Instant at;

	private final Duration uptime;

	private final @Nullable String hint;

	/**
	 * Describe the end of a process.
	 * @param serverName the server's name
	 * @param pid the process id
	 * @param exitCode the exit code, {@code 128 + N} when killed by signal N
	 * @param cause why it ended
	 * @param stderrTail the last lines of stderr, oldest first
	 * @param failure what mcp-stdio saw go wrong before it ended the process (stdout
	 * closed, a message too long), or {@code null}
	 */
	public ExitInfo(String serverName, long pid, int exitCode, ExitCause cause, List<String> stderrTail,
			@Nullable String failure) {
		this.serverName = serverName;
		this.pid = pid;
		this.exitCode = exitCode;
		this.cause = cause;
		// Sanitized here, whoever built the tail: it reaches exceptions, JSON-RPC errors
		// and the endpoint
		this.stderrTail = List.copyOf(SecretSanitizer.lines(stderrTail));
		this.failure = failure;
		this.at = Instant.now();
		this.uptime = Duration.ZERO;
		this.hint = null;
	}

	private ExitInfo(ExitInfo exit, Duration uptime, @Nullable String hint) {
		this.serverName = exit.serverName;
		this.pid = exit.pid;
		this.exitCode = exit.exitCode;
		this.cause = exit.cause;
		this.stderrTail = exit.stderrTail;
		this.failure = exit.failure;
		this.at = exit.at;
		this.uptime = uptime;
		this.hint = hint;
	}

	/**
	 * Return this end with how long the process ran and a hint on a likely cause.
	 * @param uptime how long the process ran
	 * @param hint one sentence, such as on a variable the environment allow-list
	 * withheld, or {@code null}
	 * @return the end with both
	 */
	ExitInfo after(Duration uptime, @Nullable String hint) {
		return new ExitInfo(this, uptime, hint);
	}

	public String serverName() {
		return this.serverName;
	}

	public long pid() {
		return this.pid;
	}

	/**
	 * Return the exit code, {@code 128 + N} when killed by signal N.
	 * @return the exit code
	 */
	public int exitCode() {
		return this.exitCode;
	}

	public ExitCause cause() {
		return this.cause;
	}

	/**
	 * Return the last lines of stderr, oldest first, sanitized.
	 * @return the stderr tail
	 */
	public List<String> stderrTail() {
		return this.stderrTail;
	}

	/**
	 * Return what mcp-stdio saw go wrong before it ended the process.
	 * @return the failure or {@code null}
	 */
	public @Nullable String failure() {
		return this.failure;
	}

	/**
	 * Return when the end was observed.
	 * @return the instant
	 */
	public Instant at() {
		return this.at;
	}

	public Duration uptime() {
		return this.uptime;
	}

	/**
	 * Return one sentence on a likely cause, such as a variable the environment
	 * allow-list withheld.
	 * @return the hint or {@code null}
	 */
	public @Nullable String hint() {
		return this.hint;
	}

	/**
	 * Return the exit code with the signal named when it is one, as in
	 * {@code 137 (signal 9, SIGKILL)}.
	 * @return the exit code described
	 */
	public String describeExitCode() {
		// the shell's convention: 128 + N when killed by signal N
		int signal = (this.exitCode > 128 && this.exitCode <= 128 + 64) ? this.exitCode - 128 : 0;
		if (signal == 0) {
			return Integer.toString(this.exitCode);
		}
		String name = (signal < SIGNAL_NAMES.length) ? SIGNAL_NAMES[signal] : null;
		return this.exitCode + " (signal " + signal + ((name != null) ? ", " + name : "") + ")";
	}

	/**
	 * Return the message of {@link McpServerExitedException}.
	 * @return a message naming the server, the exit code and stderr, and the hint on a
	 * line of its own
	 */
	public String message() {
		return (this.hint != null) ? withoutHint() + "\n" + this.hint : withoutHint();
	}

	/**
	 * Return the message without the hint, for a log line that adds to it before the
	 * hint.
	 * @return the message up to the stderr tail
	 */
	String withoutHint() {
		String how = (this.cause == ExitCause.MEMORY_LIMIT || this.cause == ExitCause.PROCESS_LIMIT)
				? "was stopped (" + SecretSanitizer.text(String.valueOf(this.failure)) + ") and exited"
				: ((this.failure != null) ? "failed (" + SecretSanitizer.text(this.failure) + ") and " : "")
						+ "exited unexpectedly";
		List<String> quoted = this.stderrTail.subList(Math.max(0, this.stderrTail.size() - MESSAGE_STDERR_LINES),
				this.stderrTail.size());
		return McpStdioException.describe(this.serverName) + " process " + how + " with exit code " + describeExitCode()
				+ "; stderr: " + (quoted.isEmpty() ? "(empty)" : String.join("\n", quoted));
	}

	/**
	 * Return the exception a caller gets for this exit.
	 * @return a new exception
	 */
	public McpServerExitedException toException() {
		return new McpServerExitedException(this.serverName, this.exitCode, this.stderrTail, message());
	}

	@Override
	public String toString() {
		return "ExitInfo[" + this.serverName + ", pid " + this.pid + ", " + this.cause + ", exit code "
				+ describeExitCode() + "]";
	}

}

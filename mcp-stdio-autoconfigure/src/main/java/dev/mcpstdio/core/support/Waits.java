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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

import dev.mcpstdio.McpStdioException;
import org.jspecify.annotations.Nullable;

/**
 * The bounded waits of mcp-stdio, and how their bounds are written in messages.
 *
 * @author mcp-stdio authors
 */
public final class Waits {

	private Waits() {
	}

	/**
	 * Wait for a future, bounded.
	 * @param <T> the result type
	 * @param future what to wait for
	 * @param timeout the longest wait
	 * @param serverName the server, for messages
	 * @param what what the server is to do, completing "MCP server 'x' did not ...", such
	 * as {@code start} or {@code answer initialize}
	 * @return the result
	 * @throws McpStdioException if the wait timed out or was interrupted (the interrupt
	 * is restored), or the future failed with a checked exception; an unchecked failure
	 * is rethrown as it is
	 */
	public static <T> T await(CompletableFuture<T> future, Duration timeout, String serverName, String what) {
		return await(future, timeout, serverName, what, "");
	}

	/**
	 * Wait for a future, bounded.
	 * @param <T> the result type
	 * @param future what to wait for
	 * @param timeout the longest wait
	 * @param serverName the server, for messages
	 * @param what what the server is to do, completing "MCP server 'x' did not ..."
	 * @param timeoutHint appended to the message of a timeout, such as how to raise the
	 * bound
	 * @return the result
	 * @throws McpStdioException if the wait timed out or was interrupted (the interrupt
	 * is restored), or the future failed with a checked exception; an unchecked failure
	 * is rethrown as it is
	 */
	public static <T> T await(CompletableFuture<T> future, Duration timeout, String serverName, String what,
			String timeoutHint) {
		try {
			return future.get(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new McpStdioException(serverName,
					"Interrupted while waiting for " + McpStdioException.describe(serverName) + " to " + what, ex);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof RuntimeException runtime) {
				throw runtime;
			}
			throw new McpStdioException(serverName, McpStdioException.describe(serverName) + " failed to " + what,
					ex.getCause());
		}
		catch (TimeoutException ex) {
			throw new McpStdioException(serverName, McpStdioException.describe(serverName) + " did not " + what
					+ " within " + format(timeout) + timeoutHint, ex);
		}
	}

	/**
	 * Poll a condition until it holds or a deadline passes, each pause twice the last up
	 * to a bound; sleeps as {@link #sleepNanos(long)} does.
	 * @param done the condition
	 * @param deadline a {@link System#nanoTime()} after which it is not asked again
	 * @param firstPause the first pause in nanoseconds
	 * @param maxPause the longest pause in nanoseconds
	 * @return whether the condition held
	 */
	public static boolean until(BooleanSupplier done, long deadline, long firstPause, long maxPause) {
		long pause = firstPause;
		while (!done.getAsBoolean()) {
			long now = System.nanoTime();
			if (now - deadline >= 0) {
				return false;
			}
			sleepNanos(Math.min(pause, deadline - now));
			pause = Math.min(pause * 2, maxPause);
		}
		return true;
	}

	/**
	 * Sleep even when interrupted: an ending (a stop's escalation, a cgroup emptied) must
	 * finish, and the interrupt is restored for the caller.
	 * @param nanos how long
	 */
	public static void sleepNanos(long nanos) {
		boolean interrupted = Thread.interrupted();
		try {
			Thread.sleep(nanos / 1_000_000L, (int) (nanos % 1_000_000L));
		}
		catch (InterruptedException ex) {
			interrupted = true;
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	/**
	 * Wait, bounded, for a latch; an interrupt ends the wait and is restored.
	 * @param latch the latch
	 * @param millis the longest wait
	 * @return whether the latch reached zero
	 */
	public static boolean await(CountDownLatch latch, long millis) {
		try {
			return latch.await(millis, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/**
	 * Wait, bounded, for a future; an interrupt ends the wait and is restored.
	 * @param <T> the result type
	 * @param future what to wait for
	 * @param millis the longest wait
	 * @return the result, or {@code null} when the wait timed out or was interrupted, or
	 * the future failed
	 */
	public static <T> @Nullable T awaitOrNull(CompletableFuture<T> future, long millis) {
		try {
			return future.get(millis, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
		catch (ExecutionException | TimeoutException ex) {
			return null;
		}
	}

	/**
	 * Wait, bounded, for a process to exit; an interrupt ends the wait and is restored.
	 * @param process the process
	 * @param millis the longest wait
	 * @return whether it exited
	 */
	public static boolean await(Process process, long millis) {
		try {
			return process.waitFor(millis, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/**
	 * Format a duration as {@code 2s} when it is whole seconds, else as {@code 500ms}.
	 * @param duration the duration
	 * @return the text
	 */
	public static String format(Duration duration) {
		long millis = duration.toMillis();
		return (millis % 1000 == 0) ? (millis / 1000) + "s" : millis + "ms";
	}

}

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

package dev.mcpstdio.core.server.io;

import java.io.File;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import ch.qos.logback.classic.Level;
import dev.mcpstdio.McpServerExitedException;
import dev.mcpstdio.core.server.MessageListener;
import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.core.secrets.SecretValues;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.LogCapture;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.test.TestHost;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Tests for {@link StderrLog} and the stderr path of {@link StdioServerProcess}: each
 * line is logged sanitized, a flood is logged at a bounded rate with a count of the rest,
 * a stuck appender never holds the thread that reads stderr, and a shutdown logs what is
 * still queued.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class StderrLogTests {

	/**
	 * What stderr-flood.sh writes: 10,000,000 bytes in lines of 99, then "flood done".
	 */
	private static final long FLOOD_LINES = (10_000_000 + 98) / 99 + 1;

	private final Fixtures fixtures;

	StderrLogTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void secretsOnStderrAreMaskedInTheLogTheTailAndTheException() throws Exception {
		List<String> sanitized = List.of("boom: token=******", "connecting to postgres://bob:******@db:5432/app failed",
				"Authorization: Bearer ******");
		try (LogCapture log = LogCapture.of("dev.mcpstdio.server.leaky")) {
			StdioServerProcess process = TestHost.shared()
				.start(this.fixtures.spec("leaky", "leaks-secrets.sh"), MessageListener.NONE);
			try {
				Throwable failure = failureOf(process, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}");
				assertThat(failure).isInstanceOf(McpServerExitedException.class);
				McpServerExitedException exited = (McpServerExitedException) failure;
				assertThat(exited.stderrTail()).containsExactlyElementsOf(sanitized);
				assertThat(exited.getMessage())
					.isEqualTo("MCP server 'leaky' process exited unexpectedly with exit code 3; stderr: "
							+ String.join("\n", sanitized));
				assertThat(process.stderrTail()).containsExactlyElementsOf(sanitized);
				assertThat(process.exitInfo().message()).isEqualTo(exited.getMessage());
				Await.within(Duration.ofSeconds(10))
					.until("the three lines logged", () -> log.messages(Level.INFO).size() == 3);
				assertThat(log.messages(Level.INFO)).containsExactlyElementsOf(sanitized);
				assertThat(String.join("\n", log.messages(Level.INFO)) + exited.getMessage())
					.doesNotContain("abc123secret", "hunter2", "ghp_0123");
			}
			finally {
				process.stop();
			}
		}
	}

	@Test
	void floodIsLoggedAtABoundedRateAndEveryOtherLineIsCounted() throws Exception {
		try (LogCapture log = LogCapture.of("dev.mcpstdio.server.flood-log")) {
			long begin = System.nanoTime();
			StdioServerProcess process = TestHost.shared()
				.start(this.fixtures.spec("flood-log", "stderr-flood.sh"), MessageListener.NONE);
			try {
				// the fixture answers only after its 10 MB of stderr were read
				assertThat(process.request(1, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"after-flood\"}")
					.get(60, TimeUnit.SECONDS)).contains("after-flood");
				process.stop();
				// every line is logged or counted, within a report interval or two
				Await.within(StderrLog.REPORT_INTERVAL.multipliedBy(4))
					.until("every line logged or counted", () -> logged(log) + skipped(log) == FLOOD_LINES);
				double seconds = (System.nanoTime() - begin) / 1e9;
				assertThat(logged(log)).as("lines logged in %.1f s", seconds)
					.isPositive()
					.isLessThanOrEqualTo(StderrLog.BURST + (long) Math.ceil(StderrLog.LINES_PER_SECOND * seconds));
				assertThat(log.messages(Level.WARN))
					.allSatisfy((warning) -> assertThat(warning).matches("\\d+ stderr lines of MCP server 'flood-log' "
							+ "were not logged \\(more than 100 lines a second, or the log could not keep up\\).*"));
			}
			finally {
				process.stop();
			}
		}
	}

	@Test
	void stuckAppenderNeverHoldsTheReader() throws Exception {
		StderrLog stderrLog = new StderrLog(100, 200, Duration.ofMillis(200), 16, StderrLog.LAST_LINES_BOUND);
		try (LogCapture log = LogCapture.stuck("dev.mcpstdio.server.stuck-log")) {
			ProcessBuilder builder = new ProcessBuilder("sh", Fixtures.script("stderr-flood.sh"))
				.redirectInput(new File("/dev/null"))
				.redirectOutput(ProcessBuilder.Redirect.DISCARD);
			builder.environment().put(Fixtures.MARKER, this.fixtures.id());
			Process process = builder.start();
			StderrTail tail = new StderrTail(stderrLog.open("stuck-log", SecretValues.NONE), process.getErrorStream(),
					3);
			new Thread(tail, "test-stuck-log-stderr").start();
			assertThat(log.awaitEntered(30)).as("the logging thread is stuck in the appender").isTrue();
			assertThat(tail.done.await(60, TimeUnit.SECONDS)).as("stderr read to its end while the appender is stuck")
				.isTrue();
			assertThat(tail.lines()).last().isEqualTo("flood done");
			assertThat(log.messages(Level.INFO)).isEmpty();
			log.release();
			Await.within(Duration.ofSeconds(30))
				.until("every line logged or counted", () -> logged(log) + skipped(log) == FLOOD_LINES);
			// the line the appender held and those the bounded queue took meanwhile
			assertThat(logged(log)).isLessThanOrEqualTo(1 + 16);
			assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			stderrLog.shutdown();
		}
	}

	@Test
	void shutdownLogsTheLinesStillQueuedAndTheLastCountBeforeItReturns() throws Exception {
		// a burst of 3 lines, then one a second; a report only every ten minutes
		StderrLog stderrLog = new StderrLog(1, 3, Duration.ofMinutes(10), 16, Duration.ofSeconds(30));
		try (LogCapture log = LogCapture.stuck("dev.mcpstdio.server.last-words")) {
			StderrLog.Channel channel = stderrLog.open("last-words", SecretValues.NONE);
			channel.line("first");
			channel.line("second");
			channel.line("last words");
			channel.line("not logged");
			channel.close();
			// the thread holds the first line in the appender, the others are queued
			assertThat(log.awaitEntered(30)).as("the logging thread is in the appender").isTrue();
			Thread releaser = new Thread(() -> {
				Fixtures.sleep(200);
				log.release();
			});
			releaser.start();
			stderrLog.shutdown();
			// it returned once the appender let go and the rest was logged
			assertThat(log.messages(Level.INFO)).containsExactly("first", "second", "last words");
			assertThat(log.messages(Level.WARN)).singleElement()
				.asString()
				.startsWith("1 stderr lines of MCP server 'last-words' were not logged");
			releaser.join(30_000);
		}
		finally {
			stderrLog.shutdown();
		}
	}

	@Test
	void shutdownWaitsForAStuckAppenderOnlyWithinItsBound() throws Exception {
		StderrLog stderrLog = new StderrLog(100, 200, Duration.ofMinutes(10), 16, Duration.ofMillis(300));
		try (LogCapture log = LogCapture.stuck("dev.mcpstdio.server.stuck-at-stop")) {
			StderrLog.Channel channel = stderrLog.open("stuck-at-stop", SecretValues.NONE);
			channel.line("held");
			assertThat(log.awaitEntered(30)).as("the logging thread is in the appender").isTrue();
			// the interrupt frees the appender of this line; the next one stays held
			channel.line("held too");
			long begin = System.nanoTime();
			stderrLog.shutdown();
			assertThat(Duration.ofNanos(System.nanoTime() - begin)).isLessThan(Duration.ofSeconds(10));
		}
		finally {
			stderrLog.shutdown();
		}
	}

	private static long logged(LogCapture log) {
		return log.messages(Level.INFO).size();
	}

	private static long skipped(LogCapture log) {
		return log.messages(Level.WARN)
			.stream()
			.mapToLong((warning) -> Long.parseLong(warning.substring(0, warning.indexOf(' '))))
			.sum();
	}

	private static Throwable failureOf(StdioServerProcess process, String request) throws Exception {
		try {
			process.request(1, request).get(10, TimeUnit.SECONDS);
		}
		catch (ExecutionException ex) {
			return ex.getCause();
		}
		return fail("Expected the request to fail");
	}

}

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

package dev.mcpstdio.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.mcpstdio.core.tree.Membership;
import dev.mcpstdio.core.tree.ProcReader;
import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The pid-reuse attack, for real: a process that waits until a server's root is reaped,
 * then steers the kernel's next pid ({@code /proc/sys/kernel/ns_last_pid}) so that a
 * stranger (no mcp-stdio marker, a session and group of its own) gets the root's pid.
 * Needs root; where {@value #REQUIRE} is set (CI) a machine that cannot fails the test
 * instead of skipping it.
 *
 * @author mcp-stdio authors
 */
public final class PidThief implements AutoCloseable {

	/** Set (to anything) where the attack must run. */
	public static final String REQUIRE = "MCP_STDIO_REQUIRE_PID_REUSE";

	private static final Path NS_LAST_PID = Path.of("/proc/sys/kernel/ns_last_pid");

	private final Process thief;

	private final List<Target> targets;

	private final BufferedReader out;

	private PidThief(Process thief, List<Target> targets) {
		this.thief = thief;
		this.targets = targets;
		this.out = new BufferedReader(new InputStreamReader(thief.getInputStream(), StandardCharsets.US_ASCII));
	}

	/**
	 * Make sure this machine lets the test steer pids: root, and a writable
	 * {@code ns_last_pid}. Fails where {@value #REQUIRE} is set, else skips.
	 */
	public static void requireCapability() {
		String problem = null;
		if (Membership.CURRENT_UID != 0) {
			problem = "the test does not run as root (uid " + Membership.CURRENT_UID + ")";
		}
		else if (!Files.isWritable(NS_LAST_PID)) {
			problem = NS_LAST_PID + " is not writable";
		}
		if (problem != null) {
			String required = System.getenv(REQUIRE);
			if (required != null && !required.isBlank()) {
				fail("the pid-reuse attack must run here (" + REQUIRE + "), but " + problem);
			}
			assumeTrue(false, "the pid-reuse attack cannot run: " + problem);
		}
	}

	/**
	 * Start a thief that lies in wait until the pids of processes can be given out again,
	 * then takes them one after the other.
	 * @param fixtures the test's marker, which the thief and its strangers carry (never
	 * an mcp-stdio marker)
	 * @param targets the processes whose pids to take
	 * @return the thief, waiting
	 * @throws IOException if it cannot start
	 */
	public static PidThief lieInWait(Fixtures fixtures, List<Target> targets) throws IOException {
		return lieInWait(fixtures, targets, null);
	}

	/**
	 * Start a thief that lies in wait until the pids of processes can be given out again,
	 * takes them one after the other, then kills a process at once.
	 * @param fixtures the test's marker, which the thief and its strangers carry (never
	 * an mcp-stdio marker)
	 * @param targets the processes whose pids to take
	 * @param thenKill the process to send SIGKILL once the pids are taken (one the test
	 * started), or {@code null}
	 * @return the thief, waiting
	 * @throws IOException if it cannot start
	 */
	public static PidThief lieInWait(Fixtures fixtures, List<Target> targets, @Nullable Long thenKill)
			throws IOException {
		List<String> command = new ArrayList<>(List.of("sh", Fixtures.script("pid-thief.sh")));
		for (Target target : targets) {
			StringBuilder arg = new StringBuilder(Long.toString(target.pid()));
			target.holders().forEach((holder) -> arg.append(':').append(holder.pid()));
			command.add(arg.toString());
		}
		ProcessBuilder builder = new ProcessBuilder(command);
		builder.environment().clear();
		builder.environment().put("PATH", "/usr/bin:/bin:/usr/sbin:/sbin");
		builder.environment().put(Fixtures.MARKER, fixtures.id());
		if (thenKill != null) {
			builder.environment().put("THEN_KILL", Long.toString(thenKill));
		}
		builder.redirectError(ProcessBuilder.Redirect.DISCARD);
		PidThief thief = new PidThief(builder.start(), targets);
		String first = thief.line(Duration.ofSeconds(20));
		if (!"waiting".equals(first)) {
			thief.close();
			throw new IllegalStateException("the thief did not start: " + first);
		}
		return thief;
	}

	/**
	 * Return the stranger that took the next pid, once the processes were reaped.
	 * @param within how long to wait for the reap
	 * @return the stranger, or empty when another process got the pid first (the stranger
	 * that missed it is ended)
	 */
	public Optional<Stranger> stranger(Duration within) {
		String line = line(within);
		if (line == null || line.equals("failed")) {
			throw new IllegalStateException("the thief could not steer the next pid: " + line);
		}
		long pid = Long.parseLong(line.substring(line.indexOf(' ') + 1));
		Stranger stranger = new Stranger(pid, startOf(pid));
		if (line.startsWith("taken ")) {
			return Optional.of(stranger);
		}
		stranger.end();
		return Optional.empty();
	}

	private String line(Duration within) {
		CompletableFuture<String> read = CompletableFuture.supplyAsync(() -> {
			try {
				return this.out.readLine();
			}
			catch (IOException ex) {
				return null;
			}
		});
		try {
			return read.get(within.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		catch (ExecutionException | TimeoutException ex) {
			// ending the thief ends the read
			close();
			throw new IllegalStateException(
					"the thief said nothing within " + within + "; its targets now: " + state());
		}
	}

	private String state() {
		List<String> state = new ArrayList<>();
		for (Target target : this.targets) {
			ProcReader.Stat stat = ProcReader.system().stat(target.pid());
			String command = ProcessHandle.of(target.pid())
				.flatMap((handle) -> handle.info().commandLine())
				.orElse("?");
			state.add(target.pid() + ((stat != null) ? " " + stat + " " + command : " gone"));
		}
		return String.join("; ", state);
	}

	private static long startOf(long pid) {
		ProcReader.Stat stat = ProcReader.system().stat(pid);
		return (stat != null) ? stat.startTime() : -1;
	}

	@Override
	public void close() {
		this.thief.destroyForcibly();
	}

	/**
	 * A process whose pid to take.
	 *
	 * @param pid its pid
	 * @param holders the processes that hold that pid after it ended (those left in its
	 * group or session): the kernel gives it out again only once they are gone too
	 */
	public record Target(long pid, List<ProcessHandle> holders) {

	}

	/**
	 * A process that took a server root's pid: not the server's.
	 *
	 * @param pid its pid, the root's
	 * @param startTime its start time
	 */
	public record Stranger(long pid, long startTime) {

		/**
		 * Return whether it still runs, untouched: the same process, not ended by a
		 * signal.
		 * @return whether it is alive
		 */
		public boolean isAlive() {
			ProcReader.Stat stat = ProcReader.system().stat(this.pid);
			return stat != null && !stat.isZombie() && stat.startTime() == this.startTime;
		}

		/** End it, by pid, if it is still this process. */
		public void end() {
			if (isAlive()) {
				ProcessHandle.of(this.pid).ifPresent(ProcessHandle::destroyForcibly);
			}
		}

	}

}

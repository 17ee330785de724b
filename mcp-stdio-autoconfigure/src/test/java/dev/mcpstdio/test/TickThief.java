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
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.test.PidThief.Stranger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pid-reuse attack within one clock tick, for real: a hostile server's grandchildren
 * ({@code tick-forker.sh}) tell this thief, through a FIFO, each pid they freed in the
 * tick it was born in, and the thief has a stranger (no mcp-stdio marker, a session of
 * its own, not a descendant) take it while that tick lasts: a stranger with the same pid
 * and start time as a member. Needs root ({@link PidThief#requireCapability()}).
 *
 * @author mcp-stdio authors
 */
public final class TickThief implements AutoCloseable {

	private final Process thief;

	private final Path fifo;

	private final List<Theft> strangers = new ArrayList<>();

	private final CompletableFuture<String> failure = new CompletableFuture<>();

	private TickThief(Process thief, Path fifo) {
		this.thief = thief;
		this.fifo = fifo;
	}

	/**
	 * Start a thief that reads a new FIFO in a directory.
	 * @param fixtures the test's marker, which the thief and its strangers carry
	 * @param directory where the FIFO is made
	 * @return the thief, waiting
	 * @throws Exception if it cannot start
	 */
	public static TickThief start(Fixtures fixtures, Path directory) throws Exception {
		Path fifo = directory.resolve("thief.fifo");
		Process mkfifo = new ProcessBuilder("mkfifo", "-m", "600", fifo.toString()).start();
		assertThat(mkfifo.waitFor(10, TimeUnit.SECONDS)).isTrue();
		assertThat(mkfifo.exitValue()).as("mkfifo").isZero();
		ProcessBuilder builder = new ProcessBuilder("sh", Fixtures.script("tick-thief.sh"), fifo.toString());
		builder.environment().clear();
		builder.environment().put("PATH", "/usr/bin:/bin:/usr/sbin:/sbin");
		builder.environment().put(Fixtures.MARKER, fixtures.id());
		builder.redirectError(ProcessBuilder.Redirect.DISCARD);
		TickThief thief = new TickThief(builder.start(), fifo);
		BufferedReader out = new BufferedReader(
				new InputStreamReader(thief.thief.getInputStream(), StandardCharsets.US_ASCII));
		String first = CompletableFuture.supplyAsync(() -> readLine(out)).get(20, TimeUnit.SECONDS);
		if (!"waiting".equals(first)) {
			thief.close();
			throw new IllegalStateException("the thief did not start: " + first);
		}
		Thread reader = new Thread(() -> thief.read(out), "tick-thief");
		reader.setDaemon(true);
		reader.start();
		return thief;
	}

	private static String readLine(BufferedReader out) {
		try {
			return out.readLine();
		}
		catch (IOException ex) {
			return ex.toString();
		}
	}

	private void read(BufferedReader out) {
		for (String line = readLine(out); line != null; line = readLine(out)) {
			String[] words = line.split(" ");
			if (words.length != 3) {
				this.failure.complete(line);
				return;
			}
			synchronized (this.strangers) {
				this.strangers.add(new Theft(new Stranger(Long.parseLong(words[0]), Long.parseLong(words[1])),
						words[1].equals(words[2])));
			}
		}
	}

	/**
	 * Return the FIFO that the hostile server tells the thief on.
	 * @return its path
	 */
	public Path fifo() {
		return this.fifo;
	}

	/**
	 * Return the strangers that took the pid of a member that ended in the tick it was
	 * born in, once the lines in flight were read.
	 * @return the thefts so far
	 */
	public List<Theft> thefts() {
		Fixtures.sleep(Duration.ofMillis(200).toMillis());
		if (this.failure.isDone()) {
			throw new IllegalStateException("the thief could not steer the next pid: " + this.failure.join());
		}
		synchronized (this.strangers) {
			return new ArrayList<>(this.strangers);
		}
	}

	/**
	 * A stranger that took a member's pid.
	 *
	 * @param stranger the stranger
	 * @param landed whether it has the member's start time too: the attack landed
	 */
	public record Theft(Stranger stranger, boolean landed) {

	}

	/** End the thief, by pid; its strangers are ended by the test. */
	@Override
	public void close() {
		this.thief.destroyForcibly();
	}

}

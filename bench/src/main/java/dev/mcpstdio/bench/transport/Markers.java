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
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Finds the live processes of one scenario by the marker variable every server it starts
 * carries, whichever transport started it, and kills leftovers by pid.
 *
 * @author mcp-stdio authors
 */
public final class Markers {

	/** The variable every process of a scenario carries. */
	public static final String VARIABLE = "MCP_STDIO_TRANSPORT_BENCH";

	private final String value = UUID.randomUUID().toString();

	public String value() {
		return this.value;
	}

	/**
	 * Return the pids of live (not zombie) processes that carry this marker.
	 * @return the pids
	 */
	public List<Long> alive() {
		String needle = VARIABLE + "=" + this.value;
		List<Long> pids = new ArrayList<>();
		try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
			for (Path dir : dirs) {
				try (InputStream in = Files.newInputStream(dir.resolve("environ"))) {
					String env = new String(in.readNBytes(1024 * 1024), StandardCharsets.UTF_8);
					if (Arrays.asList(env.split("\0")).contains(needle)
							&& !Files.readString(dir.resolve("stat")).matches("(?s).*\\) [ZX] .*")) {
						pids.add(Long.parseLong(dir.getFileName().toString()));
					}
				}
				catch (IOException | RuntimeException ex) {
					// gone, or not ours to read
				}
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		return pids;
	}

	/**
	 * Return the live processes that carry this marker now, each with its start time: a
	 * shutdown's processes, which {@link #awaitGone(Map, long)} then watches by pid
	 * alone.
	 * @return start times by pid
	 */
	public Map<Long, String> started() {
		Map<Long, String> started = new HashMap<>();
		for (long pid : alive()) {
			String startTime = startTime(pid);
			if (startTime != null) {
				started.put(pid, startTime);
			}
		}
		return started;
	}

	/**
	 * Wait, bounded, until every process of {@code started} is gone (or a zombie, or its
	 * pid another's), reading only their own {@code stat}: a look at every process of the
	 * machine costs time that grows with the machine's processes, which the figure would
	 * count.
	 * @param started start times by pid, from {@link #started()}
	 * @param timeoutMillis the bound
	 * @return nanoseconds from the call until none was left, or -1 when some were left
	 */
	public long awaitGone(Map<Long, String> started, long timeoutMillis) throws InterruptedException {
		long start = System.nanoTime();
		long deadline = start + timeoutMillis * 1_000_000;
		List<Long> left = new ArrayList<>(started.keySet());
		while (System.nanoTime() < deadline) {
			left.removeIf((pid) -> !started.get(pid).equals(startTime(pid)));
			if (left.isEmpty()) {
				return System.nanoTime() - start;
			}
			Thread.sleep(1);
		}
		return -1;
	}

	/**
	 * Return how many processes of {@code started} are alive now.
	 * @param started start times by pid, from {@link #started()}
	 * @return how many are alive
	 */
	public int aliveOf(Map<Long, String> started) {
		return (int) started.entrySet()
			.stream()
			.filter((entry) -> entry.getValue().equals(startTime(entry.getKey())))
			.count();
	}

	/** The start time of a live process, or {@code null} when it is gone or a zombie. */
	private static String startTime(long pid) {
		try {
			String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
			String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
			return (fields[0].equals("Z") || fields[0].equals("X")) ? null : fields[19];
		}
		catch (IOException | RuntimeException ex) {
			return null;
		}
	}

	/**
	 * Wait, bounded, until no process carries the marker.
	 * @param timeoutMillis the bound
	 * @return nanoseconds from the call until none was left, or -1 when some were left
	 */
	public long awaitNone(long timeoutMillis) throws InterruptedException {
		long start = System.nanoTime();
		long deadline = start + timeoutMillis * 1_000_000;
		while (System.nanoTime() < deadline) {
			if (alive().isEmpty()) {
				return System.nanoTime() - start;
			}
			Thread.sleep(2);
		}
		return -1;
	}

	/**
	 * Kill, by pid, every live process that carries the marker.
	 * @return how many were left to kill
	 */
	public int killLeftovers() throws InterruptedException {
		List<Long> pids = alive();
		for (long pid : pids) {
			ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
		}
		if (!pids.isEmpty() && awaitNone(10_000) < 0) {
			throw new IllegalStateException("processes with marker " + this.value + " survived SIGKILL: " + alive());
		}
		return pids.size();
	}

}

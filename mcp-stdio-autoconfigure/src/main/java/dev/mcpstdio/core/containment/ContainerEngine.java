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

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import dev.mcpstdio.core.tree.ProcessMarkers;
import dev.mcpstdio.core.tree.ProcessTree;
import dev.mcpstdio.core.support.Waits;
import org.jspecify.annotations.Nullable;

/**
 * A container engine's command-line interface, every call bounded in time and output.
 *
 * @param prefix the executable and the global options that come before the subcommand
 * @param environment the environment of every call, our markers left out
 * @param timeout how long one call may take
 * @author mcp-stdio authors
 */
record ContainerEngine(List<String> prefix, Map<String, String> environment, Duration timeout) {

	/** Every label of ours starts with this; the user may not set one. */
	static final String LABEL_PREFIX = "dev.mcpstdio.";

	/** The server's name. */
	static final String SERVER_LABEL = LABEL_PREFIX + "server";

	/** The start that made the container, as in {@code MCP_STDIO_INSTANCE}. */
	static final String INSTANCE_LABEL = LABEL_PREFIX + "instance";

	/** The JVM that started it: {@link ProcessMarkers.Owner#id()}. */
	static final String OWNER_LABEL = LABEL_PREFIX + "owner";

	/** The host of that JVM: a pid means nothing on another host. */
	static final String OWNER_HOST_LABEL = LABEL_PREFIX + "owner-host";

	/** At most this many bytes of each stream of a call are kept. */
	static final int MAX_OUTPUT = 256 * 1024;

	/** A size as the engines print it: {@code 1.5MiB}, {@code 600kB}, {@code 0B}. */
	private static final Pattern SIZE = Pattern.compile("([0-9.]+)\\s*(?:([kmgt])(i?)b|b?)");

	/** The longest list of ids passed to one call. */
	private static final int IDS_PER_CALL = 200;

	private static final String LIST_FORMAT = "{{.Id}}|{{index .Config.Labels \"" + SERVER_LABEL
			+ "\"}}|{{index .Config.Labels \"" + INSTANCE_LABEL + "\"}}|{{index .Config.Labels \"" + OWNER_LABEL
			+ "\"}}|{{index .Config.Labels \"" + OWNER_HOST_LABEL + "\"}}|{{.State.Running}}";

	/** Reads the streams of calls; a call has two, and calls are few. */
	private static final Executor readers = (runnable) -> {
		Thread thread = new Thread(runnable, "mcp-stdio-engine-output");
		thread.setDaemon(true);
		thread.start();
	};

	ContainerEngine {
		// made by of(), from an executable and a timeout that the spec checked already
		prefix = List.copyOf(prefix);
		Map<String, String> env = new LinkedHashMap<>(environment);
		// calls of ours are not processes of the server
		env.keySet().removeAll(ProcessMarkers.NAMES);
		environment = Map.copyOf(env);
	}

	/**
	 * Return the engine that runs a recognised container command: the engine command of
	 * the settings, else the server's, with its global options ({@code --context}).
	 * @param run the recognised command
	 * @param executable the resolved executable of the server's command
	 * @param environment the environment the server's command gets
	 * @param settings the server's container settings
	 * @return the engine
	 */
	static ContainerEngine of(ContainerRun run, String executable, Map<String, String> environment,
			ContainerSettings settings) {
		List<String> prefix = new ArrayList<>(
				List.of(Objects.requireNonNullElse(settings.engineCommand(), executable)));
		prefix.addAll(run.globalOptions());
		return new ContainerEngine(prefix, environment, settings.engineTimeout());
	}

	/**
	 * Return the subcommand that kills and removes at once.
	 * @return {@code rm -f}, for podman with {@code --time 0}: its rm -f stops first,
	 * with the same fixed wait as stop, unless told
	 */
	List<String> removeCommand() {
		return "podman".equals(ContainerRun.engineOf(this.prefix.get(0))) ? List.of("rm", "-f", "--time", "0")
				: List.of("rm", "-f");
	}

	/**
	 * Return the full ids of the containers, running or not, that match every filter.
	 * @param filters {@code ps --filter} expressions such as {@code label=key=value}
	 * @return the ids
	 */
	List<String> ids(String... filters) {
		List<String> args = new ArrayList<>(List.of("ps", "-a", "-q", "--no-trunc"));
		Stream.of(filters).forEach((filter) -> args.addAll(List.of("--filter", filter)));
		CommandOutput output = call(args, this.timeout);
		if (!output.ok()) {
			throw new Failure("could not list containers: " + output.error());
		}
		return output.lines();
	}

	/**
	 * Send a signal to a container's main process.
	 * @param id the container
	 * @param signal the signal's name, such as {@code TERM}
	 * @return {@code true} if sent, {@code false} when it is not running or does not
	 * exist
	 */
	boolean kill(String id, String signal) {
		CommandOutput output = call(List.of("kill", "--signal", signal, id), this.timeout);
		if (output.ok()) {
			return true;
		}
		if (output.noSuchContainer() || output.notRunning()) {
			return false;
		}
		throw new Failure("could not signal container " + shortId(id) + ": " + output.error());
	}

	/**
	 * Wait, bounded, for a container to stop running.
	 * @param id the container
	 * @param within how long to wait
	 * @return whether it is not running (stopped, or removed) at the end
	 */
	boolean awaitExit(String id, Duration within) {
		CommandOutput output = call(List.of("wait", id), within);
		if (output.timedOut()) {
			return false;
		}
		try {
			return output.ok() || output.noSuchContainer() || !isRunning(id);
		}
		catch (Failure ex) {
			return false;
		}
	}

	boolean isRunning(String id) {
		CommandOutput output = call(List.of("inspect", "--format", "{{.State.Running}}", id), this.timeout);
		if (output.ok()) {
			return output.stdout().strip().equals("true");
		}
		if (output.noSuchContainer()) {
			return false;
		}
		throw new Failure("could not inspect container " + shortId(id) + ": " + output.error());
	}

	/**
	 * Remove containers, killing those still running.
	 * @param ids the containers
	 * @return whether none of them exists any more
	 */
	boolean remove(List<String> ids) {
		boolean gone = true;
		for (List<String> chunk : chunks(ids)) {
			List<String> args = new ArrayList<>(removeCommand());
			args.addAll(chunk);
			CommandOutput output = call(args, this.timeout);
			if (!output.ok() && !output.noSuchContainer()) {
				// "removal already in progress" (--rm) is not a failure: wait, bounded,
				// for what is left
				long deadline = System.nanoTime() + this.timeout.toNanos();
				for (String id : chunk) {
					gone &= isGone(id, deadline);
				}
			}
		}
		return gone;
	}

	private boolean isGone(String id, long deadline) {
		// the engine's own removal may take a while on a loaded machine
		return Waits.until(() -> {
			CommandOutput left = call(List.of("inspect", "--format", "{{.Id}}", id), this.timeout);
			return !left.ok() && left.noSuchContainer();
		}, deadline, 100_000_000L, 100_000_000L);
	}

	/**
	 * End containers: SIGTERM to the main process of those running, one wait of up to
	 * {@code terminateTimeout} for all of them, then {@code rm -f} of all, whatever
	 * {@code --rm} says. Never {@code stop}, whose wait is fixed and not ours.
	 * @param running the containers to signal first
	 * @param ids every container to remove
	 * @param terminateTimeout how long to wait after SIGTERM
	 * @return what was done
	 */
	Stop stop(List<String> running, List<String> ids, Duration terminateTimeout) {
		long start = System.nanoTime();
		List<String> signalled = new ArrayList<>();
		String error = null;
		for (String id : running) {
			try {
				if (kill(id, "TERM")) {
					signalled.add(id);
				}
			}
			catch (Failure ex) {
				// rm -f may still work: an engine that failed once is tried once more
				error = (error != null) ? error + "; " + ex.getMessage() : ex.getMessage();
			}
		}
		long deadline = System.nanoTime() + terminateTimeout.toNanos();
		int killed = 0;
		for (String id : signalled) {
			if (!awaitExit(id, Duration.ofNanos(Math.max(1, deadline - System.nanoTime())))) {
				killed++;
			}
		}
		boolean removed = remove(ids);
		return new Stop(ids, signalled.size(), killed, removed, Duration.ofNanos(System.nanoTime() - start), error);
	}

	/**
	 * List the containers that carry our owner label, running or not.
	 * @param filters more {@code ps --filter} expressions, ANDed
	 * @return the containers
	 */
	List<Owned> listOwned(String... filters) {
		List<Owned> containers = new ArrayList<>();
		for (List<String> chunk : chunks(
				ids(Stream.concat(Stream.of("label=" + OWNER_LABEL), Stream.of(filters)).toArray(String[]::new)))) {
			List<String> args = new ArrayList<>(List.of("inspect", "--format", LIST_FORMAT));
			args.addAll(chunk);
			CommandOutput output = call(args, this.timeout);
			// a container removed between ps and inspect makes inspect fail, printing the
			// others
			output.lines().stream().map(Owned::parse).filter(Objects::nonNull).forEach(containers::add);
			if (!output.ok() && !output.noSuchContainer()) {
				throw new Failure("could not inspect containers: " + output.error());
			}
		}
		return containers;
	}

	/**
	 * Return the host pid of a container's main process, where the engine knows it.
	 * @param id the container
	 * @return the pid, or 0 when it is not running
	 */
	long mainPid(String id) {
		CommandOutput output = call(List.of("inspect", "--format", "{{.State.Pid}}", id), this.timeout);
		try {
			return output.ok() ? Long.parseLong(output.stdout().strip()) : 0;
		}
		catch (NumberFormatException ex) {
			return 0;
		}
	}

	/**
	 * Count a container's processes and memory through the engine. Costs one
	 * {@code stats} call (about a second or two): cache the result.
	 * @param id the container
	 * @return the figures, zero when it is not running
	 */
	ProcessTree.Stats stats(String id) {
		CommandOutput output = call(List.of("stats", "--no-stream", "--format", "{{.PIDs}}|{{.MemUsage}}", id),
				this.timeout);
		return output.ok() ? parseStats(output.stdout().strip()) : Containment.NOTHING;
	}

	/**
	 * Read {@code stats --format '{{.PIDs}}|{{.MemUsage}}'} output such as
	 * {@code 3|1.5MiB / 7.6GiB} (docker) or {@code 3|1.5MB / 8.2GB} (podman).
	 * @param text the output
	 * @return the figures, zero where unreadable
	 */
	static ProcessTree.Stats parseStats(String text) {
		String[] fields = text.split("\\|", 2);
		int processes = 0;
		try {
			processes = Integer.parseInt(fields[0].strip());
		}
		catch (NumberFormatException ex) {
			// "--" from an engine that does not count
		}
		return new ProcessTree.Stats(processes, (fields.length > 1) ? bytes(fields[1].split("/")[0].strip()) : 0);
	}

	private static long bytes(String size) {
		Matcher matcher = SIZE.matcher(size.toLowerCase(Locale.ROOT));
		try {
			if (!matcher.matches()) {
				return 0;
			}
			int power = (matcher.group(2) != null) ? "kmgt".indexOf(matcher.group(2)) + 1 : 0;
			int base = (matcher.group(3) != null && !matcher.group(3).isEmpty()) ? 1024 : 1000;
			return (long) (Double.parseDouble(matcher.group(1)) * Math.pow(base, power));
		}
		catch (NumberFormatException ex) {
			return 0;
		}
	}

	private CommandOutput call(List<String> args, Duration within) {
		List<String> command = new ArrayList<>(this.prefix);
		command.addAll(args);
		return run(command, this.environment, within);
	}

	/**
	 * Run a command, bounded: past {@code within} it is killed, and at most
	 * {@value #MAX_OUTPUT} bytes of each stream are kept.
	 * @param command the command
	 * @param environment its whole environment, or {@code null} for the JVM's
	 * @param within how long it may take
	 * @return how it ended
	 */
	static CommandOutput run(List<String> command, @Nullable Map<String, String> environment, Duration within) {
		ProcessBuilder builder = new ProcessBuilder(command);
		if (environment != null) {
			builder.environment().clear();
			builder.environment().putAll(environment);
		}
		Process process;
		try {
			process = builder.start();
			process.getOutputStream().close();
		}
		catch (IOException ex) {
			return new CommandOutput(-1, "", "could not run " + command.get(0) + ": " + ex.getMessage(), false);
		}
		CompletableFuture<String> stdout = CompletableFuture.supplyAsync(() -> read(process.getInputStream()), readers);
		CompletableFuture<String> stderr = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()), readers);
		boolean exited = Waits.await(process, within.toMillis());
		if (!exited) {
			// killing it closes its pipes, which ends the reads
			process.destroyForcibly();
		}
		return new CommandOutput(exited ? process.exitValue() : -1, await(stdout), await(stderr), !exited);
	}

	private static String read(InputStream in) {
		try (in) {
			byte[] bytes = in.readNBytes(MAX_OUTPUT);
			// drain the rest so that the command never blocks on a full pipe
			in.transferTo(OutputStream.nullOutputStream());
			return new String(bytes, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			return "";
		}
	}

	private static String await(CompletableFuture<String> read) {
		// a grandchild that keeps the pipe open: give up on the rest
		return Objects.requireNonNullElse(Waits.awaitOrNull(read, 2000), "");
	}

	private static List<List<String>> chunks(List<String> ids) {
		List<List<String>> chunks = new ArrayList<>();
		for (int i = 0; i < ids.size(); i += IDS_PER_CALL) {
			chunks.add(ids.subList(i, Math.min(ids.size(), i + IDS_PER_CALL)));
		}
		return chunks;
	}

	/**
	 * Return the short form of a container id, as the engines show it.
	 * @param id the full id
	 * @return its first 12 characters
	 */
	static String shortId(String id) {
		return (id.length() > 12) ? id.substring(0, 12) : id;
	}

	@Override
	public String toString() {
		return String.join(" ", this.prefix);
	}

	/**
	 * One container of ours as the engine lists it.
	 *
	 * @param id its full id
	 * @param server the server it runs
	 * @param instance the start that made it
	 * @param owner the JVM that started it, {@code null} when its labels are not readable
	 * @param running whether it is running
	 */
	record Owned(String id, String server, String instance, ProcessMarkers.@Nullable Owner owner, boolean running) {

		/**
		 * Read one line of {@link #LIST_FORMAT} output.
		 * @param line the line
		 * @return the container, or {@code null} for a line that is not one
		 */
		static @Nullable Owned parse(String line) {
			String[] fields = line.split("\\|", -1);
			if (fields.length != 6 || fields[0].isBlank()) {
				return null;
			}
			return new Owned(fields[0].strip(), Objects.requireNonNullElse(value(fields[1]), ""),
					Objects.requireNonNullElse(value(fields[2]), ""),
					ProcessMarkers.Owner.parse(value(fields[3]), value(fields[4])), fields[5].strip().equals("true"));
		}

		/** Go templates print {@code <no value>} for a missing label. */
		private static @Nullable String value(String field) {
			String value = field.strip();
			return (value.isEmpty() || value.equals("<no value>")) ? null : value;
		}

	}

	/**
	 * What ending containers did.
	 *
	 * @param ids the containers
	 * @param terminated how many were running and got SIGTERM
	 * @param killed how many of those still ran after {@code terminate-timeout}, killed
	 * by {@code rm -f}
	 * @param removed whether none of them exists at the end
	 * @param took how long it took
	 * @param error what the engine said when it could not signal one
	 */
	record Stop(List<String> ids, int terminated, int killed, boolean removed, Duration took, @Nullable String error) {

	}

	/**
	 * A call of the engine that failed or took too long.
	 */
	static final class Failure extends RuntimeException {

		Failure(String message) {
			super(message);
		}

	}

}

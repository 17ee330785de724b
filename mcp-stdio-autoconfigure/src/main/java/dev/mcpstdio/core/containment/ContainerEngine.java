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

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

import dev.mcpstdio.core.tree.ProcessMarkers;
import dev.mcpstdio.core.tree.ProcessTree;
import dev.mcpstdio.core.support.Waits;

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

	/** The longest list of ids passed to one call. */
	private static final int IDS_PER_CALL = 200;

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
	 * List the containers that carry our owner label, running or not.
	 * @param filters more {@code ps --filter} expressions, ANDed
	 * @return the containers
	 */
	List<OwnedContainer> listOwned(String... filters) {
		List<OwnedContainer> containers = new ArrayList<>();
		for (List<String> chunk : chunks(
				ids(Stream.concat(Stream.of("label=" + OWNER_LABEL), Stream.of(filters)).toArray(String[]::new)))) {
			List<String> args = new ArrayList<>(List.of("inspect", "--format", OwnedContainer.LIST_FORMAT));
			args.addAll(chunk);
			CommandOutput output = call(args, this.timeout);
			// a container removed between ps and inspect makes inspect fail, printing the
			// others
			output.lines().stream().map(OwnedContainer::parse).filter(Objects::nonNull).forEach(containers::add);
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
		return output.ok() ? EngineStats.parse(output.stdout().strip()) : Containment.NOTHING;
	}

	private CommandOutput call(List<String> args, Duration within) {
		List<String> command = new ArrayList<>(this.prefix);
		command.addAll(args);
		return BoundedCommand.run(command, this.environment, within);
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
	 * A call of the engine that failed or took too long.
	 */
	static final class Failure extends RuntimeException {

		Failure(String message) {
			super(message);
		}

	}

}

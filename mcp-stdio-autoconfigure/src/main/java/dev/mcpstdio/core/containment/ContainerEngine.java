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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.mcpstdio.core.containment.EngineCommand.Output;
import dev.mcpstdio.core.process.ProcReader;
import dev.mcpstdio.core.process.ProcessMarkers;
import org.jspecify.annotations.Nullable;

/**
 * A container engine reached through its command-line interface ({@code docker} or {@code
 * podman}, with the global options and the environment the server's own command got),
 * every call bounded in time and output. It ends a container with {@code kill} and {@code
 * rm -f}, never with {@code stop}, whose wait is fixed and not ours.
 *
 * @author mcp-stdio authors
 */
public final class ContainerEngine {

	/** The longest list of ids passed to one call. */
	private static final int IDS_PER_CALL = 200;

	private static final String LIST_FORMAT = "{{.Id}}|{{index .Config.Labels \"" + ContainerLabels.SERVER
			+ "\"}}|{{index .Config.Labels \"" + ContainerLabels.INSTANCE + "\"}}|{{index .Config.Labels \""
			+ ContainerLabels.OWNER + "\"}}|{{index .Config.Labels \"" + ContainerLabels.OWNER_HOST
			+ "\"}}|{{.State.Running}}";

	private final List<String> prefix;

	private final Map<String, String> environment;

	private final Duration timeout;

	/** The subcommand that kills and removes at once. */
	private final List<String> remove;

	/**
	 * Create an engine.
	 * @param prefix the executable and the global options that come before the subcommand
	 * @param environment the environment of every call
	 * @param timeout how long one call may take
	 */
	public ContainerEngine(List<String> prefix, Map<String, String> environment, Duration timeout) {
		if (prefix.isEmpty()) {
			throw new IllegalArgumentException("prefix must name the engine executable");
		}
		this.prefix = List.copyOf(prefix);
		ContainerRun.Engine kind = ContainerRun.engineOf(prefix.get(0));
		// podman's rm -f stops first, with the same fixed wait as stop, unless told
		// --time 0
		this.remove = (kind == ContainerRun.Engine.PODMAN) ? List.of("rm", "-f", "--time", "0") : List.of("rm", "-f");
		Map<String, String> env = new LinkedHashMap<>(environment);
		// calls of ours are not processes of the server
		env.remove(ProcessMarkers.SERVER);
		env.remove(ProcessMarkers.OWNER_PID);
		env.remove(ProcessMarkers.INSTANCE);
		env.remove(ProcessMarkers.APPLICATION);
		this.environment = Map.copyOf(env);
		this.timeout = Objects.requireNonNull(timeout, "timeout");
	}

	/**
	 * Return the engine that runs a recognised container command.
	 * @param run the recognised command
	 * @param executable the resolved executable of the server's command
	 * @param environment the environment the server's command gets
	 * @param settings the server's container settings
	 * @return the engine
	 */
	public static ContainerEngine of(ContainerRun run, String executable, Map<String, String> environment,
			ContainerSettings settings) {
		List<String> prefix = new ArrayList<>();
		String engineCommand = settings.engineCommand();
		prefix.add((engineCommand != null) ? engineCommand : executable);
		prefix.addAll(run.globalOptions());
		return new ContainerEngine(prefix, environment, settings.engineTimeout());
	}

	/**
	 * Return the executable and global options of every call.
	 * @return the prefix
	 */
	public List<String> prefix() {
		return this.prefix;
	}

	/**
	 * Return how long one call of the engine's command-line interface may take.
	 * @return the bound
	 */
	public Duration timeout() {
		return this.timeout;
	}

	Map<String, String> environment() {
		return this.environment;
	}

	List<String> removeCommand() {
		return this.remove;
	}

	/**
	 * Return the id of the container that carries a label.
	 * @param label the label
	 * @param value its value
	 * @return the full id, or {@code null} when there is none
	 */
	public @Nullable String idByLabel(String label, String value) {
		List<String> ids = ids("label=" + label + "=" + value);
		return ids.isEmpty() ? null : ids.get(0);
	}

	/**
	 * Return the full ids of the containers, running or not, that match every filter.
	 * @param filters {@code ps --filter} expressions such as {@code label=key=value}
	 * @return the ids
	 */
	public List<String> ids(String... filters) {
		List<String> args = new ArrayList<>(List.of("ps", "-a", "-q", "--no-trunc"));
		for (String filter : filters) {
			args.add("--filter");
			args.add(filter);
		}
		Output output = call(args, this.timeout);
		if (!output.ok()) {
			throw new ContainerEngineException("could not list containers: " + output.error());
		}
		return output.lines();
	}

	/**
	 * Send a signal to a container's main process.
	 * @param id the container
	 * @param signal the signal's name, such as {@code TERM}
	 * @return {@code true} if sent, {@code false} when the container is not running or
	 * does not exist
	 */
	public boolean kill(String id, String signal) {
		Output output = call(List.of("kill", "--signal", signal, id), this.timeout);
		if (output.ok()) {
			return true;
		}
		if (output.noSuchContainer() || output.notRunning()) {
			return false;
		}
		throw new ContainerEngineException("could not signal container " + shortId(id) + ": " + output.error());
	}

	/**
	 * Wait, bounded, for a container to stop running.
	 * @param id the container
	 * @param within how long to wait
	 * @return whether it is not running (stopped, or removed) at the end
	 */
	public boolean awaitExit(String id, Duration within) {
		Output output = call(List.of("wait", id), within);
		if (output.timedOut()) {
			return false;
		}
		try {
			return output.ok() || output.noSuchContainer() || !isRunning(id);
		}
		catch (ContainerEngineException ex) {
			return false;
		}
	}

	/**
	 * Return whether a container is running.
	 * @param id the container
	 * @return whether it exists and runs
	 */
	public boolean isRunning(String id) {
		Output output = call(List.of("inspect", "--format", "{{.State.Running}}", id), this.timeout);
		if (output.ok()) {
			return output.stdout().strip().equals("true");
		}
		if (output.noSuchContainer()) {
			return false;
		}
		throw new ContainerEngineException("could not inspect container " + shortId(id) + ": " + output.error());
	}

	/**
	 * Remove containers, killing those still running.
	 * @param ids the containers
	 * @return whether none of them exists any more
	 */
	public boolean remove(List<String> ids) {
		boolean gone = true;
		for (List<String> chunk : chunks(ids)) {
			List<String> args = new ArrayList<>(this.remove);
			args.addAll(chunk);
			Output output = call(args, this.timeout);
			if (!output.ok() && !output.noSuchContainer()) {
				// "removal already in progress" (--rm) is not a failure: check what is
				// left
				gone &= ids(chunk).isEmpty();
			}
		}
		return gone;
	}

	private List<String> ids(List<String> candidates) {
		List<String> left = new ArrayList<>();
		for (String id : candidates) {
			Output output = call(List.of("inspect", "--format", "{{.Id}}", id), this.timeout);
			if (output.ok() || !output.noSuchContainer()) {
				left.add(id);
			}
		}
		return left;
	}

	/**
	 * End a container: SIGTERM to its main process, a wait of up to
	 * {@code terminateTimeout} for it to stop, then {@code rm -f} (SIGKILL and removal),
	 * whether or not it was started with {@code --rm}.
	 * @param id the container
	 * @param terminateTimeout how long to wait after SIGTERM
	 * @return what was done
	 */
	public ContainerStop stop(String id, Duration terminateTimeout) {
		long start = System.nanoTime();
		boolean signalled = false;
		String error = null;
		try {
			signalled = kill(id, "TERM");
		}
		catch (ContainerEngineException ex) {
			// rm -f may still work: an engine that failed once is tried once more
			error = ex.getMessage();
		}
		boolean exited = !signalled || awaitExit(id, terminateTimeout);
		boolean removed = remove(List.of(id));
		return new ContainerStop(id, signalled, signalled && !exited, removed,
				Duration.ofNanos(System.nanoTime() - start), removed ? null : error);
	}

	/**
	 * List the containers that carry our owner label, running or not.
	 * @param filters more {@code ps --filter} expressions, ANDed
	 * @return the containers
	 */
	public List<ContainerInfo> listOwned(String... filters) {
		String[] all = new String[filters.length + 1];
		all[0] = "label=" + ContainerLabels.OWNER;
		System.arraycopy(filters, 0, all, 1, filters.length);
		List<String> ids = ids(all);
		List<ContainerInfo> containers = new ArrayList<>();
		for (List<String> chunk : chunks(ids)) {
			List<String> args = new ArrayList<>(List.of("inspect", "--format", LIST_FORMAT));
			args.addAll(chunk);
			Output output = call(args, this.timeout);
			// a container removed between ps and inspect makes inspect fail, printing the
			// others
			for (String line : output.lines()) {
				ContainerInfo info = ContainerInfo.parse(line);
				if (info != null) {
					containers.add(info);
				}
			}
			if (!output.ok() && !output.noSuchContainer()) {
				throw new ContainerEngineException("could not inspect containers: " + output.error());
			}
		}
		return containers;
	}

	/**
	 * Return the host pid of a container's main process, where the engine knows it.
	 * @param id the container
	 * @return the pid, or 0 when it is not running
	 */
	public long mainPid(String id) {
		Output output = call(List.of("inspect", "--format", "{{.State.Pid}}", id), this.timeout);
		if (!output.ok()) {
			return 0;
		}
		try {
			return Long.parseLong(output.stdout().strip());
		}
		catch (NumberFormatException ex) {
			return 0;
		}
	}

	/**
	 * Return whether this JVM sees a container's processes, with their markers, in
	 * {@code /proc}: true where the engine runs on this host and its processes are
	 * readable, false for an engine in a VM (Docker Desktop, podman machine).
	 * @param id the container
	 * @param instance the {@code MCP_STDIO_INSTANCE} it was given
	 * @param proc where this host's processes are read
	 * @return whether its processes can be counted from {@code /proc} by marker
	 */
	public boolean processesVisibleOnHost(String id, String instance, ProcReader proc) {
		long pid = mainPid(id);
		return pid > 0 && proc.environContains(pid, ProcessMarkers.INSTANCE + "=" + instance);
	}

	/**
	 * Count a container's processes and memory through the engine, for an engine whose
	 * processes this host does not see. Costs one {@code stats} call (about a second or
	 * two): cache the result.
	 * @param id the container
	 * @return the figures, zero when it is not running
	 */
	public ContainerStats stats(String id) {
		Output output = call(List.of("stats", "--no-stream", "--format", "{{.PIDs}}|{{.MemUsage}}", id), this.timeout);
		if (!output.ok()) {
			return new ContainerStats(0, 0);
		}
		return ContainerStats.parse(output.stdout().strip());
	}

	private Output call(List<String> args, Duration within) {
		List<String> command = new ArrayList<>(this.prefix.size() + args.size());
		command.addAll(this.prefix);
		command.addAll(args);
		return EngineCommand.run(command, this.environment, within);
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
	public static String shortId(String id) {
		return (id.length() > 12) ? id.substring(0, 12) : id;
	}

	@Override
	public String toString() {
		return String.join(" ", this.prefix);
	}

}

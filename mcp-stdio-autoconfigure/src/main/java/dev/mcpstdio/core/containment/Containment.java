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

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.mcpstdio.core.tree.ProcessTable;
import dev.mcpstdio.core.tree.ProcessTable.Proc;
import dev.mcpstdio.core.tree.ProcessTree;
import org.jspecify.annotations.Nullable;

/**
 * What holds one server start besides its process tree: cgroup, sandbox and container.
 *
 * @author mcp-stdio authors
 */
public final class Containment {

	static final ProcessTree.Stats NOTHING = new ProcessTree.Stats(0, 0);

	private final List<String> command;

	/**
	 * Outermost first: each wraps the command of the ones after it, and ends around them.
	 */
	private final List<Part> parts;

	private volatile boolean released;

	Containment(List<String> command, List<Part> parts) {
		List<String> wrapped = command;
		for (int i = parts.size() - 1; i >= 0; i--) {
			wrapped = parts.get(i).wrap(wrapped);
		}
		this.command = List.copyOf(wrapped);
		this.parts = List.copyOf(parts);
	}

	/**
	 * Return the command to start, wrapped by every part. Never show it: logs and the
	 * endpoint show the user's.
	 * @return the command
	 */
	public List<String> command() {
		return this.command;
	}

	/**
	 * Step 4 of a stop (or the end after any exit): each part ends what it holds around
	 * the end of what it encloses, the process tree innermost.
	 * @param terminateTimeout how long to wait after SIGTERM
	 * @param tree ends the process tree
	 */
	public void terminate(Duration terminateTimeout, Runnable tree) {
		Runnable end = tree;
		for (int i = this.parts.size() - 1; i >= 0; i--) {
			Part part = this.parts.get(i);
			Runnable inner = end;
			end = () -> part.end(terminateTimeout, inner);
		}
		end.run();
	}

	/**
	 * Let go of what this start holds once it has ended, once.
	 */
	public void release() {
		if (!this.released) {
			this.released = true;
			this.parts.forEach(Part::release);
		}
	}

	/**
	 * Add to a census the live processes of this start that a snapshot shows and that its
	 * tree and markers may not lead to.
	 * @param found the processes counted so far, by pid
	 * @param table the snapshot
	 */
	public void addMembers(Map<Long, Proc> found, ProcessTable table) {
		this.parts.forEach((part) -> part.addMembers(found, table));
	}

	/**
	 * Return the processes and memory of this start that this host cannot see, such as a
	 * container's under an engine in a VM. Never waits.
	 * @return the figures, zero when all are visible
	 */
	public ProcessTree.Stats unseen() {
		return this.parts.stream()
			.map(Part::unseen)
			.reduce(NOTHING, (a, b) -> new ProcessTree.Stats(a.liveProcesses() + b.liveProcesses(),
					a.memoryBytes() + b.memoryBytes()));
	}

	/**
	 * Return the hint of an exit at start-up that a part explains, such as a path its
	 * sandbox hides.
	 * @param stderrTail the server's last stderr lines
	 * @return the first part's hint, {@code null} when none applies
	 */
	public @Nullable String hint(List<String> stderrTail) {
		return this.parts.stream()
			.map((part) -> part.hint(stderrTail))
			.filter(Objects::nonNull)
			.findFirst()
			.orElse(null);
	}

	<T extends Part> @Nullable T part(Class<T> type) {
		return this.parts.stream().filter(type::isInstance).map(type::cast).findFirst().orElse(null);
	}

	/**
	 * What one kind of containment (a container, a cgroup, a sandbox) holds for one
	 * start.
	 */
	interface Part {

		/**
		 * Return the command that runs the given one inside this part.
		 * @param command the command of the parts inside this one
		 * @return the wrapped command
		 */
		List<String> wrap(List<String> command);

		/**
		 * End what this part holds around {@code inner}, which ends what it encloses; by
		 * default nothing of its own.
		 * @param terminateTimeout how long to wait after SIGTERM
		 * @param inner ends the parts inside this one and the process tree
		 */
		default void end(Duration terminateTimeout, Runnable inner) {
			inner.run();
		}

		/**
		 * Add the live processes of this part that a snapshot shows.
		 * @param found the processes counted so far, by pid
		 * @param table the snapshot
		 */
		default void addMembers(Map<Long, Proc> found, ProcessTable table) {
		}

		/**
		 * Return the processes and memory of this part that this host cannot see.
		 * @return the figures
		 */
		default ProcessTree.Stats unseen() {
			return NOTHING;
		}

		/**
		 * Return the hint of an exit at start-up that this part explains; by default
		 * none.
		 * @param stderrTail the server's last stderr lines
		 * @return the hint, {@code null} when none applies
		 */
		default @Nullable String hint(List<String> stderrTail) {
			return null;
		}

		/**
		 * Let go of what this part holds once its start has ended; by default nothing.
		 */
		default void release() {
		}

	}

	/**
	 * One start of a server (or, for the start-up sweep, one configured server) as its
	 * containment sees it.
	 *
	 * @param server the server's name
	 * @param command the resolved executable and the user's arguments
	 * @param workingDirectory the server's working directory, {@code null} for the JVM's
	 * @param env the environment it gets
	 * @param settings its container and sandbox settings and its
	 * {@code terminate-timeout}
	 */
	public record Start(String server, List<String> command, @Nullable Path workingDirectory, Map<String, String> env,
			Settings settings) {

		public Start {
			command = List.copyOf(command);
			env = Map.copyOf(env);
		}

	}

	/**
	 * How one server is contained.
	 *
	 * @param container its container settings
	 * @param sandbox its sandbox settings
	 * @param terminate its {@code terminate-timeout}
	 */
	public record Settings(ContainerSettings container, SandboxSettings sandbox, Duration terminate) {

	}

	/**
	 * The {@code sandbox.*} settings of one server: whether it runs under bubblewrap, and
	 * what it may reach there.
	 *
	 * @param enabled whether the server runs under {@code bwrap}
	 * @param network {@code NONE}: its own loopback only, no Unix socket; {@code HOST}:
	 * the host's network
	 * @param readWrite the paths it may write, each resolved once (symbolic links
	 * followed) when the settings were made
	 * @param readOnly the paths it may read beyond what the sandbox shows, resolved the
	 * same way
	 * @param identities the device and inode ({@code dev:ino}) of each listed path that
	 * existed when it was resolved, checked at every start
	 */
	public record SandboxSettings(boolean enabled, Network network, List<Path> readWrite, List<Path> readOnly,
			Map<Path, String> identities) {

		public SandboxSettings {
			Objects.requireNonNull(network, "network");
			readWrite = List.copyOf(readWrite);
			readOnly = List.copyOf(readOnly);
			identities = Map.copyOf(identities);
		}

		/**
		 * Make the settings of a server, resolving each listed path of an enabled sandbox
		 * now: its real path and its identity, which every start checks.
		 * @param enabled whether the server runs under {@code bwrap}
		 * @param network its network
		 * @param readWrite the paths it may write
		 * @param readOnly the paths it may read
		 */
		public SandboxSettings(boolean enabled, Network network, List<Path> readWrite, List<Path> readOnly) {
			this(enabled, network, ListedPaths.resolve(enabled, readWrite), ListedPaths.resolve(enabled, readOnly),
					ListedPaths.identify(enabled, readWrite, readOnly));
		}

		/** The network a sandboxed server gets. */
		public enum Network {

			/** Its own network namespace, with loopback only. */
			NONE,

			/** The host's network. */
			HOST

		}

	}

}

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
import java.util.List;

import dev.mcpstdio.core.process.JvmOwner;
import dev.mcpstdio.core.process.ProcessMarkers;
import org.jspecify.annotations.Nullable;

/**
 * One start of a container server: the arguments that make its container ours (labels,
 * markers, a cidfile), then the container's id, and its end through the engine. The
 * user's command line is never changed where it is shown; only the process gets ours.
 *
 * @author mcp-stdio authors
 */
public final class ContainerLaunch implements AutoCloseable {

	/** How often the cidfile is looked at while the container is being created. */
	private static final long CIDFILE_POLL_MILLIS = 20;

	private final ContainerRun run;

	private final ContainerEngine engine;

	private final String instance;

	private final List<String> args;

	private final @Nullable Path privateDirectory;

	private final @Nullable Path cidfile;

	private volatile @Nullable String id;

	private ContainerLaunch(ContainerRun run, ContainerEngine engine, String instance, List<String> args,
			@Nullable Path privateDirectory, @Nullable Path cidfile) {
		this.run = run;
		this.engine = engine;
		this.instance = instance;
		this.args = List.copyOf(args);
		this.privateDirectory = privateDirectory;
		this.cidfile = cidfile;
	}

	/**
	 * Prepare one start of a container server.
	 * @param run the recognised command
	 * @param serverName the server's name
	 * @param instance the id of this start ({@code MCP_STDIO_INSTANCE})
	 * @param engine the engine that will end, list and count the container
	 * @param settings the server's container settings
	 * @param workingDirectory the server's working directory, against which a relative
	 * cidfile of the user is read, or {@code null} for the JVM's
	 * @return the launch
	 */
	public static ContainerLaunch prepare(ContainerRun run, String serverName, String instance, ContainerEngine engine,
			ContainerSettings settings, @Nullable Path workingDirectory) {
		return prepare(run, serverName, instance, engine, settings, workingDirectory, JvmOwner.current(), null);
	}

	/**
	 * Prepare one start of a container server, its cidfile's directory created in a given
	 * directory.
	 * @param run the recognised command
	 * @param serverName the server's name
	 * @param instance the id of this start ({@code MCP_STDIO_INSTANCE})
	 * @param engine the engine that will end, list and count the container
	 * @param settings the server's container settings
	 * @param workingDirectory the server's working directory, against which a relative
	 * cidfile of the user is read, or {@code null} for the JVM's
	 * @param parent a directory of this user's only, which whoever ends the container
	 * when this JVM cannot cleans, or {@code null} for the temporary directory
	 * @return the launch
	 */
	public static ContainerLaunch prepare(ContainerRun run, String serverName, String instance, ContainerEngine engine,
			ContainerSettings settings, @Nullable Path workingDirectory, @Nullable Path parent) {
		return prepare(run, serverName, instance, engine, settings, workingDirectory, JvmOwner.current(), parent);
	}

	static ContainerLaunch prepare(ContainerRun run, String serverName, String instance, ContainerEngine engine,
			ContainerSettings settings, @Nullable Path workingDirectory, JvmOwner owner) {
		return prepare(run, serverName, instance, engine, settings, workingDirectory, owner, null);
	}

	private static ContainerLaunch prepare(ContainerRun run, String serverName, String instance, ContainerEngine engine,
			ContainerSettings settings, @Nullable Path workingDirectory, JvmOwner owner, @Nullable Path parent) {
		List<String> additions = new ArrayList<>();
		label(additions, ContainerLabels.SERVER, serverName);
		label(additions, ContainerLabels.INSTANCE, instance);
		label(additions, ContainerLabels.OWNER, owner.id());
		label(additions, ContainerLabels.OWNER_HOST, owner.host());
		Path privateDirectory = null;
		Path cidfile = null;
		String userCidfile = run.cidfile();
		if (userCidfile != null) {
			cidfile = (workingDirectory != null) ? workingDirectory.resolve(userCidfile) : Path.of(userCidfile);
		}
		else {
			try {
				// private to this user: another user must not plant an id here
				String prefix = "mcp-stdio-" + instance + "-";
				privateDirectory = (parent != null) ? Files.createTempDirectory(parent, prefix)
						: Files.createTempDirectory(prefix);
				cidfile = privateDirectory.resolve("cid");
				additions.add("--cidfile");
				additions.add(cidfile.toString());
			}
			catch (IOException | RuntimeException ex) {
				// the id is then found by the instance label
			}
		}
		env(additions, ProcessMarkers.SERVER, serverName);
		env(additions, ProcessMarkers.OWNER_PID, Long.toString(owner.pid()));
		env(additions, ProcessMarkers.INSTANCE, instance);
		if (settings.init() && !run.init()) {
			additions.add("--init");
		}
		return new ContainerLaunch(run, engine, instance, run.argsWith(additions), privateDirectory, cidfile);
	}

	private static void label(List<String> additions, String key, String value) {
		additions.add("--label");
		additions.add(key + "=" + value);
	}

	private static void env(List<String> additions, String name, String value) {
		additions.add("-e");
		additions.add(name + "=" + value);
	}

	/**
	 * Return the arguments to start the engine's command with: the user's, with ours
	 * right after {@code run}. Never show them: logs and the endpoint show the user's.
	 * @return the arguments
	 */
	public List<String> args() {
		return this.args;
	}

	public ContainerRun run() {
		return this.run;
	}

	public ContainerEngine engine() {
		return this.engine;
	}

	public String instance() {
		return this.instance;
	}

	/**
	 * Return the container's id once the engine created it: from the cidfile, else by the
	 * instance label.
	 * @return the full id, or {@code null} when there is no container (yet)
	 */
	public @Nullable String containerId() {
		String known = this.id;
		if (known != null) {
			return known;
		}
		known = readCidfile();
		if (known == null) {
			known = this.engine.idByLabel(ContainerLabels.INSTANCE, this.instance);
		}
		this.id = known;
		return known;
	}

	/**
	 * Return the container's id if it is known without asking the engine: from the
	 * cidfile, or from an earlier answer. Never blocks on the engine.
	 * @return the full id, or {@code null} when not known (yet)
	 */
	public @Nullable String knownContainerId() {
		String known = this.id;
		if (known == null) {
			known = readCidfile();
			if (known != null) {
				this.id = known;
			}
		}
		return known;
	}

	/**
	 * Return whether the engine writes the container's id to a cidfile (ours or the
	 * user's) as soon as it creates the container: once the engine's command has ended
	 * without writing one, it created none.
	 * @return whether there is a cidfile
	 */
	public boolean hasCidfile() {
		return this.cidfile != null;
	}

	/**
	 * Wait, bounded, for the engine to create the container.
	 * @param within how long to wait
	 * @return the full id, or {@code null} when there is none after the wait
	 */
	public @Nullable String awaitContainerId(Duration within) {
		long deadline = System.nanoTime() + within.toNanos();
		while (this.id == null && this.cidfile != null && System.nanoTime() < deadline) {
			String read = readCidfile();
			if (read != null) {
				this.id = read;
				return read;
			}
			if (!sleep(CIDFILE_POLL_MILLIS)) {
				break;
			}
		}
		return containerId();
	}

	private @Nullable String readCidfile() {
		Path file = this.cidfile;
		if (file == null) {
			return null;
		}
		try (InputStream in = Files.newInputStream(file)) {
			String id = new String(in.readNBytes(256), StandardCharsets.US_ASCII).strip();
			return id.isEmpty() ? null : id;
		}
		catch (IOException | RuntimeException ex) {
			return null;
		}
	}

	/**
	 * End this start's container (step 4 of a stop): SIGTERM through the engine, a wait
	 * of up to {@code terminateTimeout}, then {@code rm -f}.
	 * @param terminateTimeout how long to wait after SIGTERM
	 * @return what was done, or {@code null} when the engine never created a container
	 */
	public @Nullable ContainerStop stop(Duration terminateTimeout) {
		String known;
		try {
			known = containerId();
		}
		catch (ContainerEngineException ex) {
			return new ContainerStop("", false, false, false, Duration.ZERO, ex.getMessage());
		}
		if (known == null) {
			return null;
		}
		return this.engine.stop(known, terminateTimeout);
	}

	/**
	 * Remove what this start left on disk: our cidfile and its directory, or the user's
	 * cidfile once its container is gone (the engine refuses to start with an existing
	 * one, so a restart would fail).
	 */
	@Override
	public void close() {
		Path file = this.cidfile;
		try {
			if (this.privateDirectory != null) {
				if (file != null) {
					Files.deleteIfExists(file);
				}
				Files.deleteIfExists(this.privateDirectory);
			}
			else if (file != null) {
				String named = readCidfile();
				if (named != null && this.engine.ids("id=" + named).isEmpty()) {
					Files.deleteIfExists(file);
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			// a leftover temporary file is harmless
		}
	}

	private static boolean sleep(long millis) {
		try {
			Thread.sleep(millis);
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

}

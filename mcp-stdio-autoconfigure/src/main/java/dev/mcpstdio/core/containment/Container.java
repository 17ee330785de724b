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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.containment.Containment.Start;
import dev.mcpstdio.core.tree.ProcessMarkers;
import dev.mcpstdio.core.tree.ProcessTree;
import dev.mcpstdio.core.support.Waits;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The container of one start of a {@code docker run} or {@code podman run} server.
 *
 * @author mcp-stdio authors
 */
final class Container implements Containment.Part {

	private static final Log logger = LogFactory.getLog(Container.class);

	private final Containments host;

	private final String server;

	private final ContainerEngine engine;

	private final String instance;

	/** The user's arguments with ours right after {@code run}: never shown. */
	private final List<String> args;

	private final @Nullable Path privateDirectory;

	private final @Nullable Path cidfile;

	private volatile @Nullable String id;

	/** Whether the container is known to be gone: a later end skips the engine. */
	private volatile boolean ended;

	/** Its figures as the engine counts them, where this host cannot see them. */
	private final EngineCount count;

	/**
	 * Prepare the container of one start: labels, markers and a cidfile make it ours.
	 * @param host the host's threads, {@code /proc} and the guard's private directory
	 * @param start the start
	 * @param run its command, recognised
	 * @param instance the id of this start ({@code MCP_STDIO_INSTANCE})
	 * @param owner the JVM named in its labels and markers
	 */
	Container(Containments host, Start start, ContainerRun run, String instance, ProcessMarkers.Owner owner) {
		this.host = host;
		this.server = start.server();
		this.engine = ContainerEngine.of(run, start.command().get(0), start.env(), start.settings().container());
		this.instance = instance;
		List<String> additions = new ArrayList<>(List.of("--label", ContainerEngine.SERVER_LABEL + "=" + this.server,
				"--label", ContainerEngine.INSTANCE_LABEL + "=" + instance, "--label",
				ContainerEngine.OWNER_LABEL + "=" + owner.id(), "--label",
				ContainerEngine.OWNER_HOST_LABEL + "=" + owner.host()));
		Path directory = null;
		Path file = null;
		if (run.cidfile() != null) {
			Path workingDirectory = start.workingDirectory();
			file = (workingDirectory != null) ? workingDirectory.resolve(run.cidfile()) : Path.of(run.cidfile());
		}
		else {
			try {
				// private to this user: another user must not plant an id here; next to
				// the guard's scripts, which removes what a killed JVM left there
				Path parent = host.privateDirectory();
				String prefix = "mcp-stdio-" + instance + "-";
				directory = (parent != null) ? Files.createTempDirectory(parent, prefix)
						: Files.createTempDirectory(prefix);
				file = directory.resolve("cid");
				additions.addAll(List.of("--cidfile", file.toString()));
			}
			catch (IOException | RuntimeException ex) {
				// the id is then found by the instance label
			}
		}
		this.privateDirectory = directory;
		this.cidfile = file;
		additions.addAll(List.of("-e", ProcessMarkers.SERVER + "=" + this.server, "-e",
				ProcessMarkers.OWNER_PID + "=" + owner.pid(), "-e", ProcessMarkers.INSTANCE + "=" + instance));
		if (start.settings().container().init() && !run.init()) {
			additions.add("--init");
		}
		this.args = List.copyOf(run.argsWith(additions));
		this.count = new EngineCount(this.engine, this.server, instance, host, this::knownContainerId,
				() -> this.ended);
	}

	@Override
	public List<String> wrap(List<String> command) {
		List<String> wrapped = new ArrayList<>(List.of(command.get(0)));
		wrapped.addAll(this.args);
		return wrapped;
	}

	ContainerEngine engine() {
		return this.engine;
	}

	/**
	 * Return the container's id once the engine created it: from the cidfile, else by the
	 * instance label.
	 * @return the full id, or {@code null} when there is no container (yet)
	 */
	@Nullable String containerId() {
		String known = knownContainerId();
		if (known == null) {
			List<String> ids = this.engine.ids("label=" + ContainerEngine.INSTANCE_LABEL + "=" + this.instance);
			known = ids.isEmpty() ? null : ids.get(0);
			this.id = known;
		}
		return known;
	}

	/**
	 * Return the container's id if it is known without asking the engine.
	 * @return the full id, or {@code null} when not known (yet)
	 */
	@Nullable String knownContainerId() {
		String known = this.id;
		if (known == null) {
			known = readCidfile();
			this.id = known;
		}
		return known;
	}

	private @Nullable String readCidfile() {
		if (this.cidfile == null) {
			return null;
		}
		try (InputStream in = Files.newInputStream(this.cidfile)) {
			String read = new String(in.readNBytes(256), StandardCharsets.US_ASCII).strip();
			return read.isEmpty() ? null : read;
		}
		catch (IOException | RuntimeException ex) {
			return null;
		}
	}

	/**
	 * End this start's container through its engine: SIGTERM, a wait of up to
	 * {@code terminateTimeout}, then {@code rm -f}.
	 * @param terminateTimeout how long to wait after SIGTERM
	 * @return what was done, or {@code null} when the engine never created a container
	 */
	@Nullable ContainerStop stop(Duration terminateTimeout) {
		try {
			String known = containerId();
			return (known != null) ? ContainerStop.end(this.engine, List.of(known), List.of(known), terminateTimeout)
					: null;
		}
		catch (ContainerEngine.Failure ex) {
			// only the listing of the id throws: the stop reports its failures in its
			// result
			return new ContainerStop(List.of(), 0, 0, false, Duration.ZERO, ex.getMessage());
		}
	}

	/**
	 * End the container while {@code inner} ends the process tree. A cidfile still empty
	 * is read again once the tree (the engine's command) has ended: a command that ended
	 * without writing it created no container, and costs no engine call.
	 */
	@Override
	public void end(Duration terminateTimeout, Runnable inner) {
		CompletableFuture<@Nullable ContainerStop> stop = null;
		if (!this.ended && (knownContainerId() != null || this.cidfile == null)) {
			stop = CompletableFuture.supplyAsync(() -> stop(terminateTimeout), this.host.tasks());
		}
		try {
			inner.run();
		}
		finally {
			if (stop == null && !this.ended && knownContainerId() != null) {
				// created while the tree was being ended
				stop = CompletableFuture.supplyAsync(() -> stop(terminateTimeout), this.host.tasks());
			}
			if (stop != null) {
				report(await(stop, terminateTimeout), terminateTimeout);
			}
		}
	}

	private @Nullable ContainerStop await(CompletableFuture<@Nullable ContainerStop> stop, Duration terminateTimeout) {
		// kill, wait, rm -f and a check of what is left: each engine call is bounded
		Duration bound = terminateTimeout.plus(this.engine.timeout().multipliedBy(3)).plusSeconds(1);
		try {
			return stop.get(bound.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
		catch (ExecutionException | TimeoutException ex) {
			logger.error(McpStdioException.describe(this.server) + ": could not end its container through "
					+ this.engine + ": " + ((ex instanceof ExecutionException) ? ex.getCause() : ex));
			return null;
		}
	}

	private void report(@Nullable ContainerStop stop, Duration terminateTimeout) {
		if (stop == null) {
			return;
		}
		String container = McpStdioException.describe(this.server) + ": container "
				+ ContainerEngine.shortId(stop.ids().get(0));
		if (!stop.removed()) {
			logger.error(container + " could not be removed: " + stop.error());
			return;
		}
		this.ended = true;
		if (stop.killed() > 0) {
			logger.warn(container + " did not stop within " + Waits.format(terminateTimeout)
					+ " after SIGTERM through the engine; removed it with rm -f (" + stop.took().toMillis() + " ms)");
		}
		else if (stop.terminated() > 0) {
			logger.warn(container + " was still running; sent SIGTERM through the engine and removed it ("
					+ stop.took().toMillis() + " ms)");
		}
		else {
			if (logger.isDebugEnabled()) {
				logger.debug(container + " had stopped; removed it (" + stop.took().toMillis() + " ms)");
			}
		}
	}

	/** The engine's figures of the container, where this host cannot see it. */
	@Override
	public ProcessTree.Stats unseen() {
		return this.count.unseen();
	}

	/**
	 * Count the container through the engine even where this host sees its processes, as
	 * for an engine in a VM: for tests of that path on a machine that has none.
	 */
	void countThroughEngineOnly() {
		this.count.engineOnly();
	}

	/**
	 * Remove what this start left on disk: our cidfile and its directory, or the user's
	 * cidfile once its container is gone (the engine refuses to start with an existing
	 * one, so a restart would fail).
	 */
	@Override
	public void release() {
		try {
			if (this.privateDirectory != null) {
				Files.deleteIfExists(this.privateDirectory.resolve("cid"));
				Files.deleteIfExists(this.privateDirectory);
			}
			else if (this.cidfile != null) {
				String named = readCidfile();
				if (named != null && this.engine.ids("id=" + named).isEmpty()) {
					Files.deleteIfExists(this.cidfile);
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			// a leftover temporary file is harmless
		}
	}

}

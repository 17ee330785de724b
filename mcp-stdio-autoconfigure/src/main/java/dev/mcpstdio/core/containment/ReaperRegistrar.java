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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.mcpstdio.core.process.JvmOwner;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The scripts the orphan guard runs once this JVM is gone, besides its own escalation:
 * one that ends this JVM's containers through every engine used so far (rewritten when a
 * new engine appears), one that ends what is left in this JVM's cgroups. Each is written
 * to a directory private to this user and announced to the guard once.
 *
 * @author mcp-stdio authors
 */
public final class ReaperRegistrar {

	private static final Log logger = LogFactory.getLog(ReaperRegistrar.class);

	private final OrphanGuard guard;

	private final Map<List<String>, ContainerEngine> engines = new LinkedHashMap<>();

	private @Nullable Path directory;

	private boolean cgroupAnnounced;

	/**
	 * Create the registrar of a guard.
	 * @param guard the guard that runs the scripts
	 */
	public ReaperRegistrar(OrphanGuard guard) {
		this.guard = guard;
	}

	/**
	 * Make sure the guard ends the containers of an engine if this JVM dies.
	 * @param engine an engine a server is about to use
	 */
	public synchronized void containerEngine(ContainerEngine engine) {
		if (!this.guard.isEnabled()) {
			return;
		}
		List<String> identity = ContainerReaper.identity(engine);
		if (this.engines.putIfAbsent(identity, engine) != null) {
			return;
		}
		try {
			this.guard.reaper(ContainerReaper.write(directory().resolve("containers.sh"), this.engines.values(),
					JvmOwner.current()));
		}
		catch (IOException | RuntimeException ex) {
			this.engines.remove(identity);
			logger.warn("Could not write the script that ends this JVM's MCP server containers if it is killed ("
					+ ex.getMessage() + "); the next start-up's sweep removes what is left");
		}
	}

	/**
	 * Make sure the guard ends what is left in this JVM's cgroups if it dies.
	 * @param cgroups the containment in use
	 */
	public synchronized void cgroups(CgroupContainment cgroups) {
		if (this.cgroupAnnounced || !this.guard.isEnabled() || !cgroups.isAvailable()) {
			return;
		}
		try {
			Path script = CgroupReaper.write(cgroups, directory().resolve("cgroup.sh"));
			if (script != null) {
				this.guard.reaper(script);
			}
			this.cgroupAnnounced = true;
		}
		catch (IOException | RuntimeException ex) {
			this.cgroupAnnounced = true;
			logger.warn("Could not write the script that ends this JVM's MCP server cgroups if it is killed ("
					+ ex.getMessage() + "); the next start-up's sweep ends what is left");
		}
	}

	/**
	 * Return the directory of the scripts, where the cidfiles of containers go too: the
	 * guard removes what is left in it once it ran the scripts.
	 * @return the directory, or {@code null} when the guard is off or it cannot be made
	 */
	public synchronized @Nullable Path privateDirectory() {
		if (!this.guard.isEnabled()) {
			return null;
		}
		try {
			return directory();
		}
		catch (IOException ex) {
			return null;
		}
	}

	/**
	 * Remove the scripts once the host closed with its servers stopped: the guard, told
	 * to quit, runs none of them. Cidfiles of containers still running stay with them.
	 */
	public synchronized void close() {
		Path dir = this.directory;
		if (dir == null) {
			return;
		}
		for (String script : List.of("containers.sh", "cgroup.sh")) {
			try {
				Files.deleteIfExists(dir.resolve(script));
			}
			catch (IOException ex) {
				// left for the temporary directory's own cleaning
			}
		}
		try {
			Files.deleteIfExists(dir);
		}
		catch (IOException ex) {
			// not empty: a container's cidfile is still there
		}
	}

	/** A directory of this user's only (created so on POSIX), once per host. */
	private Path directory() throws IOException {
		Path dir = this.directory;
		if (dir == null) {
			dir = Files.createTempDirectory("mcp-stdio-guard-");
			this.directory = dir;
		}
		return dir;
	}

}

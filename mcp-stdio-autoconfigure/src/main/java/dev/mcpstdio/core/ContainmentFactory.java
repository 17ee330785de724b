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

package dev.mcpstdio.core;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.CommandLocator.CommandNotFoundException;
import dev.mcpstdio.core.containment.CgroupContainment;
import dev.mcpstdio.core.containment.CgroupSweep;
import dev.mcpstdio.core.containment.ServerCgroup;
import dev.mcpstdio.core.containment.ContainerEngine;
import dev.mcpstdio.core.containment.ContainerEngineException;
import dev.mcpstdio.core.containment.ContainerLaunch;
import dev.mcpstdio.core.containment.ContainerReaper;
import dev.mcpstdio.core.containment.ContainerRun;
import dev.mcpstdio.core.containment.ContainerSweep;
import dev.mcpstdio.core.containment.InvalidContainerCommandException;
import dev.mcpstdio.core.containment.ReaperRegistrar;
import dev.mcpstdio.core.process.ProcReader;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Prepares what contains each server start besides its process tree: its container
 * ({@code docker run} and {@code podman run} servers) and its cgroup, with the orphan
 * guard's scripts for both. The cgroup containment in use is probed on first use and said
 * once at INFO.
 *
 * @author mcp-stdio authors
 */
final class ContainmentFactory {

	private static final Log logger = LogFactory.getLog(ContainmentFactory.class);

	private final Map<String, String> jvmEnvironment;

	private final Executor tasks;

	private final ReaperRegistrar reapers;

	private final ProcReader proc;

	private final boolean cgroupsEnabled;

	private volatile @Nullable CgroupContainment cgroups;

	ContainmentFactory(ReaperRegistrar reapers, Map<String, String> jvmEnvironment, Executor tasks, ProcReader proc,
			boolean cgroupsEnabled) {
		this.reapers = reapers;
		this.jvmEnvironment = jvmEnvironment;
		this.tasks = tasks;
		this.proc = proc;
		this.cgroupsEnabled = cgroupsEnabled;
	}

	/**
	 * Return the cgroup containment servers get, probed on first use and said at INFO.
	 * @return the containment, possibly none
	 */
	CgroupContainment cgroups() {
		CgroupContainment cgroups = this.cgroups;
		if (cgroups == null) {
			synchronized (this) {
				cgroups = this.cgroups;
				if (cgroups == null) {
					cgroups = this.cgroupsEnabled ? CgroupContainment.detect(this.proc)
							: CgroupContainment.none("turned off by mcp.stdio.cgroup.enabled=false");
					logger.info("MCP server containment: " + cgroups.description());
					this.cgroups = cgroups;
				}
			}
		}
		return cgroups;
	}

	/**
	 * Prepare what contains one start of a server.
	 * @param spec the server
	 * @param executable its resolved executable
	 * @param env the environment it gets, markers included
	 * @param instance the id of this start
	 * @return the containment, {@link Containment#NONE} without container and cgroup
	 * @throws McpStdioException if the server's container command cannot serve MCP over
	 * stdio
	 */
	Containment prepare(StdioServerSpec spec, Path executable, Map<String, String> env, String instance) {
		ContainerLaunch container = null;
		ContainerRun run = recognise(spec);
		if (run != null) {
			ContainerEngine engine = ContainerEngine.of(run, executable.toString(), env, spec.container());
			this.reapers.containerEngine(engine);
			// the cidfile goes next to the guard's scripts: it removes what a killed JVM
			// left there
			container = ContainerLaunch.prepare(run, spec.name(), instance, engine, spec.container(),
					spec.workingDirectory(), this.reapers.privateDirectory());
		}
		CgroupContainment cgroups = cgroups();
		// a group's name has no dots: those of the instance would look like its files
		ServerCgroup group = cgroups.create(instance.replace('.', '-'));
		if (group != null) {
			this.reapers.cgroups(cgroups);
		}
		if (container == null && group == null) {
			return Containment.NONE;
		}
		return new Containment(spec.name(), container, group, cgroups, this.tasks, this.proc);
	}

	private static @Nullable ContainerRun recognise(StdioServerSpec spec) {
		if (!spec.container().enabled()) {
			return null;
		}
		try {
			return ContainerRun.recognise(spec.command(), spec.args());
		}
		catch (InvalidContainerCommandException ex) {
			String argument = (ex.argIndex() >= 0) ? "args[" + ex.argIndex() + "]" : "args";
			throw new McpStdioException(spec.name(),
					"Could not start MCP server '" + spec.name() + "': " + argument + ": " + ex.getMessage(), ex);
		}
	}

	/**
	 * Remove the containers that dead JVMs of this host left, through the engines of the
	 * given servers (each engine once, with the longest {@code terminate-timeout} of its
	 * servers). An engine that does not answer is skipped with a WARN.
	 * @param specs the configured servers; those that are not container servers are
	 * ignored
	 * @return how many containers were removed
	 */
	int sweepContainers(Collection<StdioServerSpec> specs) {
		Map<List<String>, ContainerEngine> engines = new LinkedHashMap<>();
		Map<List<String>, Duration> bounds = new LinkedHashMap<>();
		for (StdioServerSpec spec : specs) {
			ContainerEngine engine = engineOf(spec);
			if (engine != null) {
				List<String> identity = ContainerReaper.identity(engine);
				engines.putIfAbsent(identity, engine);
				bounds.merge(identity, spec.shutdown().terminate(), (a, b) -> (a.compareTo(b) >= 0) ? a : b);
			}
		}
		int removed = 0;
		for (Map.Entry<List<String>, ContainerEngine> entry : engines.entrySet()) {
			try {
				removed += ContainerSweep.sweep(entry.getValue(), bounds.get(entry.getKey())).removed().size();
			}
			catch (ContainerEngineException ex) {
				logger.warn("Could not look for orphaned MCP server containers of " + entry.getValue() + ": "
						+ ex.getMessage());
			}
		}
		return removed;
	}

	/**
	 * End and remove the cgroups that dead JVMs of this host left, where containment is
	 * in use.
	 * @param terminateTimeout how long to wait after SIGTERM
	 * @return how many processes were in them
	 */
	int sweepCgroups(Duration terminateTimeout) {
		return new CgroupSweep(cgroups()).sweep(terminateTimeout);
	}

	private @Nullable ContainerEngine engineOf(StdioServerSpec spec) {
		ContainerRun run;
		try {
			run = recognise(spec);
		}
		catch (McpStdioException ex) {
			// reported when the server starts
			return null;
		}
		if (run == null) {
			return null;
		}
		Map<String, String> env = ServerEnvironment.build(spec, this.jvmEnvironment, "sweep", "sweep");
		try {
			Path executable = CommandLocator.locate(spec.command(), CommandLocator.pathOf(env),
					spec.workingDirectory());
			return ContainerEngine.of(run, executable.toString(), env, spec.container());
		}
		catch (CommandNotFoundException ex) {
			return null;
		}
	}

}

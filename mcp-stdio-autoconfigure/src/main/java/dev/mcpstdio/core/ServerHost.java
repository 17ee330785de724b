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
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.containment.Containment;
import dev.mcpstdio.core.containment.Containments;
import dev.mcpstdio.core.containment.OrphanGuard;
import dev.mcpstdio.core.server.MessageListener;
import dev.mcpstdio.core.server.ProcessLauncher;
import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.core.support.Threads;
import dev.mcpstdio.core.tree.Membership;
import dev.mcpstdio.core.tree.Platform;
import dev.mcpstdio.core.tree.ProcReader;
import dev.mcpstdio.core.tree.ProcessScanner;
import dev.mcpstdio.core.tree.ProcessTree;
import org.jspecify.annotations.Nullable;

/**
 * The host of one application's server processes: it starts them, counts them, sweeps
 * what dead JVMs left, and owns the threads and guard they share.
 *
 * @author mcp-stdio authors
 */
public final class ServerHost implements AutoCloseable {

	/**
	 * Threads for exits, starts and stops: at most this many at once, then the caller.
	 */
	private static final int MAX_TASK_THREADS = 512;

	private final Platform platform;

	private final OrphanGuard guard;

	private final Containments containments;

	private final ExecutorService tasks;

	private final ScheduledExecutorService scheduler;

	private final ProcessLauncher launcher;

	private final String application;

	private ServerHost(Builder builder) {
		this.platform = builder.platform;
		this.application = builder.application;
		Membership membership = Membership.ofCurrentUser();
		ProcessScanner scanner = new ProcessScanner(this.platform, builder.proc);
		this.guard = new OrphanGuard(this.platform, builder.orphanGuard, this.application);
		this.tasks = Threads.pool("mcp-stdio-task-", MAX_TASK_THREADS);
		this.scheduler = Threads.timer("mcp-stdio-timer");
		this.containments = new Containments(this.guard, this.tasks, scanner, membership, builder.proc,
				builder.cgroups);
		this.launcher = new ProcessLauncher(new ProcessLauncher.Machine(this.platform, builder.proc, membership,
				scanner, this.guard, this.containments), this.tasks, this.scheduler, builder.environment,
				this.application);
	}

	/**
	 * Start building a host: by default for this JVM's platform and environment, with the
	 * orphan guard and cgroups on where the platform has them.
	 * @return a builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Start a server process.
	 * @param spec what to start
	 * @param listener receives its messages and its end
	 * @return the running process
	 * @throws McpStdioException if it cannot be started; nothing is left running then
	 */
	public StdioServerProcess start(StdioServerSpec spec, MessageListener listener) {
		return this.launcher.start(spec, listener);
	}

	/**
	 * Count the live processes of a server and their resident memory: every process
	 * carrying its markers from this JVM, whichever start made it (so a leaked earlier
	 * one shows), those in its cgroups, and those of its containers.
	 * @param serverName the server's name, or {@code null} to count only the trees of the
	 * given processes (one instance of a per-user server)
	 * @param current the server's current processes, possibly none
	 * @return the figures
	 */
	public ProcessTree.Stats count(@Nullable String serverName, List<StdioServerProcess> current) {
		return this.launcher.count(serverName, current);
	}

	public Platform platform() {
		return this.platform;
	}

	/**
	 * Return the threads that run exits, starts, stops and other tasks that may block.
	 * @return the executor
	 */
	public Executor tasks() {
		return this.tasks;
	}

	/**
	 * Return the one thread that runs timed tasks, such as restarts after their backoff.
	 * Tasks must not block: they hand blocking work to {@link #tasks()}.
	 * @return the scheduler
	 */
	public ScheduledExecutorService scheduler() {
		return this.scheduler;
	}

	public OrphanGuard orphanGuard() {
		return this.guard;
	}

	/**
	 * Return the name this host's servers carry as their application, so that a start-up
	 * sweep of the same application finds what they left.
	 * @return the application's id
	 */
	public String application() {
		return this.application;
	}

	/**
	 * End what dead JVMs left behind, at start-up: their containers through the engines
	 * of the given servers (first: the process sweep would leave them stopped but not
	 * removed), their cgroups, then their marked processes.
	 * @param specs the configured servers
	 * @param terminateTimeout how long to wait after SIGTERM
	 * @param allApplications whether to end what every application of this user left, not
	 * only this one's
	 * @return what the process sweep did
	 */
	public Containments.Swept sweepLeftovers(Collection<StdioServerSpec> specs, Duration terminateTimeout,
			boolean allApplications) {
		List<Containment.Start> servers = new ArrayList<>();
		for (StdioServerSpec spec : specs) {
			try {
				servers.add(this.launcher.startOf(spec, "sweep"));
			}
			catch (McpStdioException ex) {
				// its command is not found: reported when it starts
			}
		}
		return this.containments.sweep(servers, terminateTimeout, allApplications ? null : this.application);
	}

	/**
	 * Say which cgroup containment servers get, at INFO the first time.
	 * @return the description
	 */
	public String describeContainment() {
		return this.containments.describe();
	}

	/**
	 * Release what the host holds once its servers stopped: its threads, and its orphan
	 * guard (which stays while a server it knows still runs).
	 */
	@Override
	public void close() {
		this.guard.quit();
		this.scheduler.shutdownNow();
		this.tasks.shutdown();
		this.launcher.close();
	}

	/** Builds a {@link ServerHost}. */
	public static final class Builder {

		private Platform platform = Platform.current();

		private ProcReader proc = ProcReader.system();

		private Map<String, String> environment = System.getenv();

		private boolean orphanGuard = true;

		private boolean cgroups = true;

		private String application = defaultApplication(null);

		private Builder() {
		}

		/**
		 * Use another platform, as tests do to run without {@code setsid} or
		 * {@code /proc}.
		 * @param platform the platform
		 * @return this builder
		 */
		public Builder platform(Platform platform) {
			this.platform = platform;
			return this;
		}

		/**
		 * Use the application's environment, of which servers get an allow-list.
		 * @param environment the environment
		 * @return this builder
		 */
		public Builder environment(Map<String, String> environment) {
			this.environment = Map.copyOf(environment);
			return this;
		}

		/**
		 * Guard the servers against a killed JVM, where the platform can (the default).
		 * @param enabled whether to guard
		 * @return this builder
		 */
		public Builder orphanGuard(boolean enabled) {
			this.orphanGuard = enabled;
			return this;
		}

		/**
		 * Run each server in a cgroup of its own, where this JVM may write the cgroup v2
		 * hierarchy (the default).
		 * @param enabled whether to use cgroups
		 * @return this builder
		 */
		public Builder cgroups(boolean enabled) {
			this.cgroups = enabled;
			return this;
		}

		/**
		 * Name the application, so that a start-up sweep claims only its own leftovers.
		 * By default its main class and working directory.
		 * @param application the name, such as {@code spring.application.name}
		 * @return this builder
		 */
		public Builder application(String application) {
			this.application = defaultApplication(application);
			return this;
		}

		/**
		 * Return the host.
		 * @return a new host
		 */
		public ServerHost build() {
			return new ServerHost(this);
		}

		private static String defaultApplication(@Nullable String name) {
			if (name != null && !name.isBlank()) {
				return name.strip().replaceAll("[^A-Za-z0-9._@:/-]", "_");
			}
			String command = System.getProperty("sun.java.command", "");
			String main = command.isBlank() ? "java" : command.split(" ", 2)[0];
			String directory = Path.of("").toAbsolutePath().toString();
			return (main + "@" + directory).replaceAll("[^A-Za-z0-9._@:/-]", "_").toLowerCase(Locale.ROOT);
		}

	}

}

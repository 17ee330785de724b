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

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.guard.OrphanGuard;
import dev.mcpstdio.core.guard.OrphanSweep;
import dev.mcpstdio.core.io.StderrLog;
import dev.mcpstdio.core.io.StderrPoller;
import dev.mcpstdio.core.process.Platform;
import dev.mcpstdio.core.process.ProcessScanner;
import dev.mcpstdio.core.process.ProcessTree;
import dev.mcpstdio.core.process.TreeTerminator;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * What the server processes of one application share: the {@link Platform}, the process
 * scanner and census, the orphan guard, the containment of servers in containers and
 * cgroups, the launcher, and the threads that observe exits and run starts, stops and
 * restarts. Every server receives its host instead of reaching for statics, so a test can
 * give it another one.
 *
 * @author mcp-stdio authors
 */
public final class ServerHost {

	/**
	 * Threads for exits, starts and stops: at most this many at once, then the caller.
	 */
	private static final int MAX_TASK_THREADS = 512;

	private static final Log logger = LogFactory.getLog(ServerHost.class);

	private static volatile @Nullable ServerHost shared;

	private final Platform platform;

	private final ProcessScanner scanner;

	private final ProcessCensus census;

	private final TreeTerminator terminator;

	private final OrphanGuard guard;

	private final Containments containments;

	private final ProcessLauncher launcher;

	private final StderrLog stderrLog = StderrLog.withDefaults();

	private final StderrPoller stderrPoller = new StderrPoller();

	private final ExecutorService tasks;

	private final ScheduledExecutorService scheduler;

	/**
	 * The stops of an application's shutdown, which share their last looks at the
	 * processes.
	 */
	private final StopCohort shutdownCohort = StopCohort.together();

	private final ExitWatcher exits;

	/**
	 * Create a host.
	 * @param platform what the OS offers
	 * @param guard the orphan guard of this JVM
	 * @param jvmEnvironment the application's environment, that servers get an allow-list
	 * of
	 */
	public ServerHost(Platform platform, OrphanGuard guard, Map<String, String> jvmEnvironment) {
		this.platform = platform;
		this.scanner = new ProcessScanner(platform);
		this.census = new ProcessCensus(this.scanner);
		this.terminator = new TreeTerminator(this.scanner);
		this.guard = guard;
		AtomicInteger threads = new AtomicInteger();
		this.tasks = new ThreadPoolExecutor(0, MAX_TASK_THREADS, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
				(runnable) -> daemon(runnable, "mcp-stdio-task-" + threads.incrementAndGet()),
				new ThreadPoolExecutor.CallerRunsPolicy());
		this.containments = new Containments(guard, jvmEnvironment, this.tasks);
		this.launcher = new ProcessLauncher(platform, jvmEnvironment, this.scanner, guard, this.containments);
		this.scheduler = Executors.newSingleThreadScheduledExecutor((runnable) -> daemon(runnable, "mcp-stdio-timer"));
		this.exits = new ExitWatcher(this.tasks);
	}

	/**
	 * Return the host of this JVM's platform, its orphan guard and its environment.
	 * @return the shared host
	 */
	public static ServerHost shared() {
		ServerHost host = shared;
		if (host == null) {
			synchronized (ServerHost.class) {
				host = shared;
				if (host == null) {
					host = new ServerHost(Platform.current(), OrphanGuard.shared(), System.getenv());
					List<String> missing = host.platform.missingProtections();
					if (!missing.isEmpty()) {
						logger.warn("MCP server processes are less protected on this platform: "
								+ String.join("; ", missing));
					}
					shared = host;
				}
			}
		}
		return host;
	}

	private static Thread daemon(Runnable runnable, String name) {
		Thread thread = new Thread(runnable, name);
		thread.setDaemon(true);
		return thread;
	}

	/**
	 * Start a server process.
	 * @param spec what to start
	 * @param listener receives its messages and its end
	 * @return the running process
	 * @throws McpStdioException if it cannot be started; nothing is left running then
	 */
	public StdioServerProcess start(StdioServerSpec spec, MessageListener listener) {
		ProcessLauncher.Launched launched = this.launcher.launch(spec);
		try {
			return StdioServerProcess.run(spec, listener, launched, this);
		}
		catch (RuntimeException | Error ex) {
			// Spawned but not run: end it now, or it would run untracked
			abandon(spec, launched);
			if (ex instanceof McpStdioException stdio) {
				throw stdio;
			}
			throw new McpStdioException(spec.name(),
					"Could not run MCP server '" + spec.name() + "' after starting it: " + ex, ex);
		}
	}

	private void abandon(StdioServerSpec spec, ProcessLauncher.Launched launched) {
		Process process = launched.process();
		ProcessTree tree = new ProcessTree(process.pid(), launched.startTime(), launched.instance(),
				this.platform.ownSessions(), process::isAlive, this.scanner::now);
		launched.containment()
			.terminate(spec.shutdown().terminate(), () -> this.terminator.escalate(tree::members, launched.startTime(),
					spec.shutdown().terminate(), new TreeTerminator.Escalation() {
					}));
		launched.containment().release();
		this.guard.ended(process.pid());
	}

	public Platform platform() {
		return this.platform;
	}

	/**
	 * Return the census that counts the live processes of servers.
	 * @return the census
	 */
	public ProcessCensus census() {
		return this.census;
	}

	/**
	 * Return the threads that run exits, starts, stops and other tasks that may block.
	 * @return the executor
	 */
	public Executor tasks() {
		return this.tasks;
	}

	/**
	 * Return the stops of an application's shutdown, which run together.
	 * @return the cohort
	 */
	StopCohort shutdownCohort() {
		return this.shutdownCohort;
	}

	/**
	 * Return the one thread that runs timed tasks, such as restarts after their backoff.
	 * Tasks must not block: they hand blocking work to {@link #tasks()}.
	 * @return the scheduler
	 */
	public ScheduledExecutorService scheduler() {
		return this.scheduler;
	}

	/**
	 * Return the sweep that ends the processes earlier JVMs left behind.
	 * @return a sweep over this host's processes
	 */
	public OrphanSweep orphanSweep() {
		return new OrphanSweep(this.scanner, this.terminator);
	}

	ExitWatcher exits() {
		return this.exits;
	}

	/**
	 * Turn the containment of servers in their own cgroups on or off for the servers
	 * started from now on. It is on by default where this JVM may write the cgroup v2
	 * hierarchy; the system property {@code mcp.stdio.cgroup.enabled=false} turns the
	 * default off.
	 * @param enabled whether to use cgroups where possible
	 */
	public void setCgroupsEnabled(boolean enabled) {
		this.containments.setCgroupsEnabled(enabled);
	}

	/**
	 * Say which cgroup containment servers started from now on get, at INFO the first
	 * time.
	 * @return the description
	 */
	public String describeContainment() {
		return this.containments.cgroups().description();
	}

	/**
	 * Remove the containers that dead JVMs of this host left, through the engines of the
	 * given servers; run it before {@link #orphanSweep()}, which would end the marked
	 * processes of such containers and leave the containers stopped but not removed.
	 * @param specs the configured servers
	 * @return how many containers were removed
	 */
	public int sweepContainers(Collection<StdioServerSpec> specs) {
		return this.containments.sweepContainers(specs);
	}

	/**
	 * End and remove the cgroups that dead JVMs of this host left.
	 * @param terminateTimeout how long to wait after SIGTERM
	 * @return how many processes were in them
	 */
	public int sweepCgroups(Duration terminateTimeout) {
		return this.containments.sweepCgroups(terminateTimeout);
	}

	StderrLog stderrLog() {
		return this.stderrLog;
	}

	StderrPoller stderrPoller() {
		return this.stderrPoller;
	}

	ProcessScanner scanner() {
		return this.scanner;
	}

	TreeTerminator terminator() {
		return this.terminator;
	}

	OrphanGuard guard() {
		return this.guard;
	}

}

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

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.containment.Containment;
import dev.mcpstdio.core.containment.Containments;
import dev.mcpstdio.core.containment.OrphanGuard;
import dev.mcpstdio.core.tree.CommandLocator;
import dev.mcpstdio.core.tree.CommandLocator.CommandNotFoundException;
import dev.mcpstdio.core.tree.Membership;
import dev.mcpstdio.core.tree.Platform;
import dev.mcpstdio.core.tree.ProcReader;
import dev.mcpstdio.core.tree.ProcessMarkers;
import dev.mcpstdio.core.tree.ProcessScanner;
import dev.mcpstdio.core.tree.ProcessTable;
import dev.mcpstdio.core.tree.ProcessTable.Proc;
import dev.mcpstdio.core.tree.ProcessTree;
import dev.mcpstdio.core.tree.TreeTerminator;
import dev.mcpstdio.core.secrets.SecretSanitizer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Starts the server processes of one application, with the threads and guard they share.
 *
 * @author mcp-stdio authors
 */
public final class ServerHost implements AutoCloseable {

	/**
	 * Threads for exits, starts and stops: at most this many at once, then the caller.
	 */
	private static final int MAX_TASK_THREADS = 512;

	private static final Log logger = LogFactory.getLog(ServerHost.class);

	private static final Set<String> UNIX_ALLOWED = Set.of("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG",
			"TMPDIR");

	private static final Set<String> WINDOWS_ALLOWED = Set.of("APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA",
			"PATH", "PATHEXT", "PROCESSOR_ARCHITECTURE", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "TMP", "USERNAME",
			"USERPROFILE", "PROGRAMFILES", "COMSPEC", "WINDIR");

	/** A word that could be a variable name, as environment variables are written. */
	private static final Pattern WORD = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

	private final Platform platform;

	private final ProcReader proc;

	private final Membership membership;

	final ProcessScanner scanner;

	final TreeTerminator terminator;

	private final OrphanGuard guard;

	private final Containments containments;

	private final Map<String, String> jvmEnvironment;

	private final ExecutorService tasks;

	private final ScheduledExecutorService scheduler;

	final Exits exits;

	final StderrLog stderrLog = StderrLog.withDefaults();

	final StderrPoller stderrPoller = new StderrPoller(StderrPoller.IDLE);

	final Cohort cohort = new Cohort();

	/**
	 * The last count of each server, with the snapshot it was made from: a scrape reads
	 * processes and memory of every server, and each is counted once per snapshot.
	 */
	private final Map<String, Counted> lastCounts = new ConcurrentHashMap<>();

	private final String application;

	private ServerHost(Builder builder) {
		this.platform = builder.platform;
		this.proc = builder.proc;
		this.application = builder.application;
		this.jvmEnvironment = builder.environment;
		this.membership = Membership.ofCurrentUser();
		this.scanner = new ProcessScanner(this.platform, this.proc);
		this.terminator = new TreeTerminator(this.scanner, ShutdownTimeouts.KILL_WAIT);
		this.guard = new OrphanGuard(this.platform, builder.orphanGuard, this.application);
		AtomicInteger threads = new AtomicInteger();
		this.tasks = new ThreadPoolExecutor(0, MAX_TASK_THREADS, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
				(runnable) -> daemon(runnable, "mcp-stdio-task-" + threads.incrementAndGet()),
				new ThreadPoolExecutor.CallerRunsPolicy());
		ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1,
				(runnable) -> daemon(runnable, "mcp-stdio-timer"));
		// a cancelled check (an idle stop, a restart) leaves the queue at once, and what
		// it holds with it: not when it would have been due
		timer.setRemoveOnCancelPolicy(true);
		this.scheduler = Executors.unconfigurableScheduledExecutorService(timer);
		this.containments = new Containments(this.guard, this.tasks, this.scanner, this.membership, this.proc,
				builder.cgroups);
		this.exits = new Exits(this.tasks);
	}

	/**
	 * Start building a host: by default for this JVM's platform and environment, with the
	 * orphan guard and cgroups on where the platform has them.
	 * @return a builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	static Thread daemon(Runnable runnable, String name) {
		Thread thread = new Thread(runnable, name);
		thread.setDaemon(true);
		return thread;
	}

	/** Start a daemon thread running a loop, unless one runs it: that one is woken. */
	static Thread startOrWake(@Nullable Thread running, Runnable loop, String name) {
		if (running != null && running.isAlive()) {
			LockSupport.unpark(running);
			return running;
		}
		Thread started = daemon(loop, name);
		started.start();
		return started;
	}

	/**
	 * Wait on a monitor, which its notifier notifies, until a condition read under it
	 * holds.
	 * @param monitor the monitor
	 * @param deadlineNanos the {@link System#nanoTime()} to give up at
	 * @param maxWaitMillis the longest wait before the condition is read again
	 * @param condition what is waited for
	 * @return whether it holds, {@code false} once the deadline passed or on an interrupt
	 */
	static boolean awaitOn(Object monitor, long deadlineNanos, long maxWaitMillis, BooleanSupplier condition) {
		synchronized (monitor) {
			while (!condition.getAsBoolean()) {
				long left = deadlineNanos - System.nanoTime();
				if (left <= 0) {
					return false;
				}
				try {
					monitor.wait(Math.max(1, Math.min(left / 1_000_000L, maxWaitMillis)));
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return false;
				}
			}
			return true;
		}
	}

	/**
	 * Start a server process.
	 * @param spec what to start
	 * @param listener receives its messages and its end
	 * @return the running process
	 * @throws McpStdioException if it cannot be started; nothing is left running then
	 */
	public StdioServerProcess start(StdioServerSpec spec, MessageListener listener) {
		Launched launched = launch(spec);
		try {
			this.guard.started(launched.process().pid(), launched.startTime(), this.platform.ownSessions(),
					spec.shutdown().stdinClose(), spec.shutdown().terminate());
			return StdioServerProcess.run(spec, this, launched, treeOf(launched), listener);
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

	private ProcessTree treeOf(Launched launched) {
		return ProcessTree.ofChild(launched.process(), launched.startTime(), launched.instance(),
				this.platform.ownSessions(), this.platform.hasProcFileSystem() ? this.proc : null, this.membership);
	}

	private void abandon(StdioServerSpec spec, Launched launched) {
		ProcessTree tree = treeOf(launched);
		Duration terminate = spec.shutdown().terminate();
		launched.containment()
			.terminate(terminate, () -> this.terminator.escalate(tree::members, launched.startTime(), terminate,
					new TreeTerminator.Escalation() {
					}));
		launched.containment().release();
		this.guard.ended(launched.process().pid());
	}

	/**
	 * Start a server's process.
	 * @param spec what to start
	 * @return the started process
	 * @throws McpStdioException if the command cannot be run
	 */
	private Launched launch(StdioServerSpec spec) {
		String instance = ProcessMarkers.newInstance();
		Containment.Start start = startOf(spec, instance);
		Containment containment = this.containments.prepare(start, instance);
		// setsid execs in place: the server's pid is also its process group and
		// session. The command is never kept in the spec: logs and the endpoint show the
		// user's command line
		ProcessBuilder builder = new ProcessBuilder(this.platform.inOwnSession(containment.command()));
		builder.environment().clear();
		try {
			checkEnvironment(spec, start.env());
			builder.environment().putAll(start.env());
		}
		catch (RuntimeException ex) {
			containment.release();
			throw ex;
		}
		if (spec.workingDirectory() != null) {
			builder.directory(spec.workingDirectory().toFile());
		}
		Process process;
		try {
			process = builder.start();
		}
		catch (IOException ex) {
			containment.release();
			throw new McpStdioException(spec.name(),
					"Could not start MCP server '" + spec.name() + "' (" + spec.commandLine() + "): " + ex.getMessage(),
					ex);
		}
		this.scanner.invalidate();
		long startTime = this.platform.hasProcFileSystem() ? ProcessTree.startTimeOfChild(process, this.proc)
				: Math.max(0, this.scanner.startTimeOf(process.pid()));
		logger.debug("Launched " + spec.commandLine() + " as pid " + process.pid() + ", instance " + instance);
		Set<String> withheld = new HashSet<>(this.jvmEnvironment.keySet());
		withheld.removeAll(start.env().keySet());
		return new Launched(process, instance, startTime, containment, Set.copyOf(withheld));
	}

	/**
	 * Refuse an environment the OS cannot take, naming the variable, never its value (the
	 * JDK's own message quotes the value: a user's token).
	 */
	private static void checkEnvironment(StdioServerSpec spec, Map<String, String> env) {
		env.forEach((name, value) -> {
			String what = (name.isEmpty() || name.indexOf('=') >= 0 || name.indexOf('\u0000') >= 0)
					? "its name is empty or holds '=' or a NUL character"
					: (value.indexOf('\u0000') >= 0) ? "its value holds a NUL character" : null;
			if (what != null) {
				throw new McpStdioException(spec.name(),
						"Could not start MCP server '" + spec.name() + "': environment variable "
								+ SecretSanitizer.quote(name, 100, spec.secrets()) + " cannot "
								+ "be passed to a process (" + what + "); the value is not shown");
			}
		});
	}

	/**
	 * Return what a start of a server runs: its environment and its executable.
	 * @param spec the server
	 * @param instance the id of the start
	 * @return the start
	 * @throws McpStdioException if its command is not found
	 */
	private Containment.Start startOf(StdioServerSpec spec, String instance) {
		Map<String, String> env = environment(spec, instance);
		List<String> command = new ArrayList<>();
		try {
			command.add(CommandLocator.locate(spec.command(), CommandLocator.pathOf(env), spec.workingDirectory())
				.toString());
		}
		catch (CommandNotFoundException ex) {
			throw new McpStdioException(spec.name(),
					"Could not start MCP server '" + spec.name() + "': " + ex.getMessage(), ex);
		}
		command.addAll(spec.args());
		return new Containment.Start(spec.name(), command, spec.workingDirectory(), env,
				new Containment.Settings(spec.container(), spec.sandbox(), spec.shutdown().terminate()));
	}

	/**
	 * Return the environment for one start of a server: an allow-list of the JVM's own
	 * variables (so that the application's secrets do not reach servers), its own
	 * variables, and the process markers on top.
	 * @param spec the server
	 * @param instance the id of this start
	 * @return the complete environment
	 */
	private Map<String, String> environment(StdioServerSpec spec, String instance) {
		Map<String, String> env = new LinkedHashMap<>();
		for (Map.Entry<String, String> entry : this.jvmEnvironment.entrySet()) {
			if (spec.inheritEnv() || isAllowed(entry.getKey())) {
				env.put(entry.getKey(), entry.getValue());
			}
		}
		env.putAll(spec.env());
		// Markers last: a configured value must not hide a process from the tree
		env.put(ProcessMarkers.SERVER, spec.name());
		env.put(ProcessMarkers.OWNER_PID, Long.toString(ProcessMarkers.CURRENT_PID));
		env.put(ProcessMarkers.INSTANCE, instance);
		env.put(ProcessMarkers.APPLICATION, this.application);
		return env;
	}

	private static boolean isAllowed(String name) {
		return Platform.current().isWindows() ? WINDOWS_ALLOWED.contains(name.toUpperCase(Locale.ROOT))
				: (UNIX_ALLOWED.contains(name) || name.startsWith("LC_"));
	}

	/**
	 * Explain a start-up failure caused by the allow-list: the first variable the stderr
	 * of a server that exited names, that the application has but the server did not get.
	 * @param jvmVariables the names of the JVM's environment variables
	 * @param serverVariables the names of the variables the server got
	 * @param stderrTail the last lines of the server's stderr
	 * @param origin where the server was configured: the hint names the user's own key
	 * @return one sentence naming the variable (never its value) and how to pass it, or
	 * {@code null}
	 */
	static @Nullable String hint(Set<String> jvmVariables, Set<String> serverVariables, List<String> stderrTail,
			StdioServerSpec.Origin origin) {
		for (String line : stderrTail) {
			Matcher matcher = WORD.matcher(line);
			while (matcher.find()) {
				String word = matcher.group();
				// shorter names are likely ordinary words, and so is a lower-case word of
				// stderr ("path", "user"); http_proxy is not
				boolean variableLike = word.length() >= 3
						&& (word.indexOf('_') >= 0 || word.chars().anyMatch(Character::isUpperCase));
				if (variableLike && jvmVariables.contains(word) && !serverVariables.contains(word)) {
					return "Hint: the server's stderr names " + word + ", a variable of the application that the "
							+ "server did not get (a server gets only an allow-list of the application's "
							+ "environment); pass it with " + origin.passVariable(word) + " or set "
							+ origin.inheritEnvProperty() + "=true";
				}
			}
		}
		return null;
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
		ProcessTable table = this.scanner.recent();
		Counted last = (serverName != null) ? this.lastCounts.get(serverName) : null;
		if (last != null && last.table() == table && last.current().equals(current)) {
			return last.stats();
		}
		Map<Long, Proc> found = new HashMap<>();
		for (StdioServerProcess process : current) {
			for (Proc member : process.tree.members(table)) {
				found.put(member.pid(), member);
			}
			process.containment.addMembers(found, table);
		}
		for (Proc member : (serverName != null) ? table.all() : List.<Proc>of()) {
			if (member.pid() != ProcessMarkers.CURRENT_PID && this.membership.isMarked(member,
					(markers) -> markers.isOwnedByThisJvm() && serverName.equals(markers.server()))) {
				found.put(member.pid(), member);
			}
		}
		long memory = found.values().stream().mapToLong(Proc::rssBytes).sum();
		int processes = found.size();
		for (StdioServerProcess process : current) {
			// a container whose processes this host does not see (an engine in a VM)
			ProcessTree.Stats container = process.containment.unseen();
			processes += container.liveProcesses();
			memory += container.memoryBytes();
		}
		ProcessTree.Stats stats = new ProcessTree.Stats(processes, memory);
		if (this.lastCounts.size() > 1024) {
			this.lastCounts.clear();
		}
		if (serverName != null) {
			this.lastCounts.put(serverName, new Counted(table, List.copyOf(current), stats));
		}
		return stats;
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
				servers.add(startOf(spec, "sweep"));
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
		this.exits.close();
		this.stderrLog.shutdown();
	}

	/**
	 * A started server process.
	 *
	 * @param process the process
	 * @param instance its instance marker
	 * @param startTime its start time, 0 when unknown
	 * @param containment its container and cgroup, if any
	 * @param withheldVariables the names (never the values) of the application's
	 * environment variables the process did not get
	 */
	record Launched(Process process, String instance, long startTime, Containment containment,
			Set<String> withheldVariables) {

	}

	private record Counted(ProcessTable table, List<StdioServerProcess> current, ProcessTree.Stats stats) {

	}

	/**
	 * Notices the exits of server processes and hands each to the task executor.
	 */
	static final class Exits {

		/**
		 * How often the live processes are looked at: the most an unseen exit is late.
		 */
		static final long INTERVAL_NANOS = 100_000_000L;

		private final Executor tasks;

		private final Map<Process, Runnable> watched = new ConcurrentHashMap<>();

		private final Object lock = new Object();

		private @Nullable Thread thread;

		private volatile boolean closed;

		Exits(Executor tasks) {
			this.tasks = tasks;
		}

		/**
		 * Run an action once a process has ended.
		 * @param process the process
		 * @param onExit what to run, on the task executor
		 */
		void watch(Process process, Runnable onExit) {
			this.watched.put(process, onExit);
			synchronized (this.lock) {
				this.thread = startOrWake(this.thread, this::run, "mcp-stdio-exits");
			}
		}

		/**
		 * Handle a process's exit now if it has ended: whoever sees an end first (the
		 * reader of its stdout at the stream's end, a stop that waited for it) says so.
		 * @param process the process
		 */
		void check(Process process) {
			if (!process.isAlive()) {
				Runnable onExit = this.watched.remove(process);
				if (onExit != null) {
					this.tasks.execute(onExit);
				}
			}
		}

		void close() {
			synchronized (this.lock) {
				this.closed = true;
				if (this.thread != null) {
					this.thread.interrupt();
				}
			}
		}

		// For an exit nobody saw (a child holds stdout open), one thread for all
		// processes. Not Process.onExit(): the JDK completes it on the common fork-join
		// pool, where an exit waits behind whatever else the application runs there
		// (seconds, on Java 25 with two cores). isAlive() turns false as soon as the
		// JDK's own reaper thread has reaped the process, whatever the common pool does.
		private void run() {
			while (!Thread.currentThread().isInterrupted() && !this.closed) {
				if (this.watched.isEmpty()) {
					// Nothing to watch: wait for the next process, without polling
					LockSupport.park(this);
				}
				else {
					LockSupport.parkNanos(this, INTERVAL_NANOS);
				}
				for (Process process : this.watched.keySet()) {
					check(process);
				}
			}
		}

	}

	/**
	 * The stops under way, so that a stop whose root exited looks at its tree with
	 * theirs.
	 */
	static final class Cohort {

		// One read of every process then serves them all, instead of one read per exit
		// while the others still need the CPU to exit.

		private final Object lock = new Object();

		/**
		 * Stops that joined and have not yet finished step 3; guarded by {@link #lock}.
		 */
		private int waiting;

		/** A stop begins: until it {@link #leave() leaves}, the others wait for it. */
		void join() {
			synchronized (this.lock) {
				this.waiting++;
			}
		}

		/** A stop is past step 3: its root has exited, or it waited as long as it may. */
		void leave() {
			synchronized (this.lock) {
				this.waiting--;
				if (this.waiting <= 0) {
					this.lock.notifyAll();
				}
			}
		}

		/**
		 * Wait until every stop that joined has left, or until the deadline, that of the
		 * caller's own step 3: it costs a stop no more than that step's bound.
		 * @param deadlineNanos the {@link System#nanoTime()} to give up at
		 * @return whether the others left in time
		 */
		boolean awaitOthers(long deadlineNanos) {
			return awaitOn(this.lock, deadlineNanos, Long.MAX_VALUE, () -> this.waiting <= 0);
		}

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

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

package dev.mcpstdio.lifecycle;

import java.io.IOException;
import java.net.InetAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import ch.qos.logback.classic.Level;
import dev.mcpstdio.core.server.ExitCause;
import dev.mcpstdio.core.server.StdioServerProcess.StopResult;
import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.core.containment.ContainmentAccess;
import dev.mcpstdio.lifecycle.forked.ForkedMcpApplication;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.LogCapture;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.test.Sandboxes;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.util.FileSystemUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for servers sandboxed by bubblewrap, through the real product: the sandbox, not
 * the fixture, denies what the same server does without it, and stop, counts, markers,
 * cgroup, restarts and the orphan guard hold inside it. Where bwrap cannot sandbox they
 * are skipped, saying why, unless {@value Sandboxes#REQUIRE} is set, as in CI.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class SandboxServerTests {

	private static final Pattern TEXT = Pattern.compile("\"text\":\"(.*)\"\\}\\]");

	private final Fixtures fixtures;

	private final ApplicationContextRunner runner = ContainmentContexts.runner();

	private final AtomicInteger ids = new AtomicInteger();

	/** Under /tmp, which the sandbox replaces: seen only when listed in read-write. */
	@TempDir
	Path temp;

	/**
	 * Outside /tmp, which the sandbox keeps read-only; with a home to plant a file in.
	 */
	private Path work;

	/** A file in the host's /tmp, which the sandbox's private /tmp does not have. */
	private Path hostTmp;

	SandboxServerTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@BeforeEach
	void sandbox() throws IOException {
		Sandboxes.assume();
		// as root, the server runs as an unprivileged user: these must let it in
		Sandboxes.writable(this.temp);
		this.work = Sandboxes.readable(Files.createTempDirectory(Path.of("target").toAbsolutePath(), "sandbox-"));
		Files.createDirectories(this.work.resolve("home"));
		Files.writeString(this.work.resolve("home").resolve("secret.txt"), "planted-" + this.fixtures.id());
		this.hostTmp = Files.writeString(Files.createTempFile(Path.of("/tmp"), "mcp-stdio-sandbox-", ".txt"),
				"host-tmp-" + this.fixtures.id());
	}

	@AfterEach
	void removeWork() throws IOException {
		FileSystemUtils.deleteRecursively(this.work);
		Files.deleteIfExists(this.hostTmp);
	}

	/**
	 * The properties of a sandboxed fixture server, its home the planted one, the
	 * module's target directory readable (the fixtures are there, in a home or not).
	 */
	private List<String> server(String name, String command, String script, String... settings) {
		String prefix = "mcp.stdio.servers." + name + ".";
		List<String> properties = new ArrayList<>(
				List.of(prefix + "command=" + command, prefix + "args[0]=" + Fixtures.script(script),
						prefix + "env." + Fixtures.MARKER + "=" + this.fixtures.id(),
						prefix + "env.HOME=" + this.work.resolve("home"), prefix + "sandbox.enabled=true",
						prefix + "sandbox.read-only[0]=" + Path.of("target").toAbsolutePath(),
						prefix + "sandbox.read-write[0]=" + this.temp));
		for (String setting : settings) {
			properties.add(prefix + setting);
		}
		return properties;
	}

	private List<String> probe(String name, int port, String... settings) {
		List<String> properties = server(name, "bash", "sandbox-probe.sh", settings);
		String prefix = "mcp.stdio.servers." + name + ".env.";
		properties.addAll(List.of(prefix + "OUTSIDE=" + this.work.resolve(name + ".txt"),
				prefix + "INSIDE=" + this.temp.resolve(name + ".txt"), prefix + "PORT=" + port,
				prefix + "TMPFILE=" + this.hostTmp));
		return properties;
	}

	@Test
	void theSandboxDeniesWhatTheSameServerDoesWithoutIt() throws Exception {
		try (ServerSocket listener = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
				LogCapture log = LogCapture.of(StdioServerProcess.class.getName())) {
			listener.setSoTimeout(200);
			List<String> properties = new ArrayList<>(probe("boxed", listener.getLocalPort()));
			properties.addAll(probe("networked", listener.getLocalPort(), "sandbox.network=host"));
			properties.addAll(probe("open", listener.getLocalPort(), "sandbox.enabled=false"));
			this.runner.withPropertyValues(properties.toArray(String[]::new)).run((context) -> {
				assertThat(context).hasNotFailed();
				McpStdioServers servers = context.getBean(McpStdioServers.class);
				McpStdioServer boxed = servers.get("boxed");
				assertThat(request(boxed, "tools/list", "{}")).contains("\"name\":\"write_outside\"",
						"\"name\":\"read_home\"", "\"name\":\"connect\"");
				assertThat(call(boxed, "write_outside")).startsWith("denied: ").contains("Read-only file system");
				assertThat(this.work.resolve("boxed.txt")).doesNotExist();
				assertThat(call(boxed, "read_home")).startsWith("denied: ")
					.contains("No such file")
					.doesNotContain("planted");
				// its own /tmp: the host's files are not in it
				assertThat(call(boxed, "read_tmp")).startsWith("denied: ")
					.contains("No such file")
					.doesNotContain("host-tmp");
				assertThat(call(boxed, "connect")).startsWith("denied: ").contains("Connection refused");
				assertThat(accepted(listener)).as("a connection from the sandbox").isFalse();
				assertThat(call(boxed, "write_inside")).startsWith("ok: ");
				assertThat(this.temp.resolve("boxed.txt")).hasContent("written");
				// its own /tmp and home are its to write, whichever user it runs as
				assertThat(call(boxed, "write_scratch")).isEqualTo("ok: written written");
				assertThat(this.work.resolve("home").resolve(".cache")).doesNotExist();
				// network: host reaches the host's loopback, sandboxed all the same
				McpStdioServer networked = servers.get("networked");
				assertThat(call(networked, "connect")).isEqualTo("ok: connected");
				assertThat(accepted(listener)).as("a connection from the sandbox on the host's network").isTrue();
				assertThat(call(networked, "write_outside")).startsWith("denied: ");
				assertThat(call(networked, "read_home")).startsWith("denied: ");
				// without the sandbox, the same server succeeds at all three
				McpStdioServer open = servers.get("open");
				assertThat(call(open, "write_outside")).startsWith("ok: ");
				assertThat(this.work.resolve("open.txt")).hasContent("written");
				assertThat(call(open, "read_home")).isEqualTo("ok: planted-" + this.fixtures.id());
				assertThat(call(open, "read_tmp")).isEqualTo("ok: host-tmp-" + this.fixtures.id());
				assertThat(call(open, "connect")).isEqualTo("ok: connected");
				assertThat(accepted(listener)).as("a connection from the server without a sandbox").isTrue();
			});
			assertThat(log.messages(Level.INFO)).filteredOn((line) -> line.startsWith("Started MCP server"))
				.hasSize(3)
				.anySatisfy((line) -> assertThat(line).startsWith("Started MCP server 'boxed' (pid ")
					.contains(", sandboxed): bash "))
				.anySatisfy((line) -> assertThat(line).startsWith("Started MCP server 'networked' (pid ")
					.contains(", sandboxed): bash "))
				.anySatisfy((line) -> assertThat(line).startsWith("Started MCP server 'open' (pid ")
					.doesNotContain("sandboxed"));
		}
	}

	/**
	 * The attacks of an escape, made by the same probe in the sandbox and out of it: each
	 * fails in the sandbox (network none) while the probe's tools answer, and succeeds
	 * without it, so that the sandbox, not the probe, is what stops them.
	 */
	@Test
	void everyAttackFailsInTheSandboxAndSucceedsWithoutIt() throws Exception {
		String id = this.fixtures.id();
		Path listed = Sandboxes.readable(Files.createDirectories(this.work.resolve("listed")));
		Path rootOnly = secret(listed.resolve("root-only.txt"));
		Path hiddenDirectory = Files.createDirectories(Path.of("/var/tmp", "mcp-stdio-hidden-" + id));
		Path hidden = secret(hiddenDirectory.resolve("secret.txt"));
		List<AutoCloseable> opened = new ArrayList<>();
		try (LogCapture log = LogCapture.of(ServerController.class.getName())) {
			Path run = unixListener(Path.of("/run", "mcp-stdio-" + id + ".sock"), opened);
			Path varTmp = unixListener(Path.of("/var/tmp", "mcp-stdio-" + id + ".sock"), opened);
			Path inListed = unixListener(listed.resolve("listed.sock"), opened);
			String abstractName = "mcp-stdio-" + id;
			opened.add(abstractListener(abstractName));
			String shm = sharedMemory(opened);
			List<String> properties = new ArrayList<>();
			for (String name : List.of("boxed", "open")) {
				Path swap = Sandboxes.writable(Files.createDirectories(this.work.resolve(name).resolve("rw")));
				Sandboxes.writable(Files.createDirectories(swap.resolve("sub")));
				Sandboxes.writable(Files.createDirectories(swap.resolve("sub").resolve("cache")));
				Files.createDirectories(this.work.resolve(name).resolve("victim").resolve("cache"));
				properties.addAll(probe(name, 1, "sandbox.read-only[1]=" + listed, "sandbox.read-write[1]=" + swap,
						"sandbox.read-write[2]=" + swap.resolve("sub").resolve("cache"), "restart.policy=on-failure",
						"restart.initial-backoff=100ms", "restart.max-restarts=3",
						(name.equals("open") ? "sandbox.enabled=false" : "sandbox.network=none")));
				String env = "mcp.stdio.servers." + name + ".env.";
				properties.addAll(List.of(env + "RUN_SOCKET=" + run, env + "VAR_TMP_SOCKET=" + varTmp,
						env + "LISTED_SOCKET=" + inListed, env + "ABSTRACT_SOCKET=" + abstractName,
						env + "HIDDEN_SECRET=" + hidden, env + "ROOT_ONLY_SECRET=" + rootOnly, env + "SHM_ID=" + shm,
						env + "SWAP=" + swap, env + "VICTIM=" + this.work.resolve(name).resolve("victim")));
			}
			this.runner.withPropertyValues(properties.toArray(String[]::new)).run((context) -> {
				assertThat(context).hasNotFailed();
				McpStdioServers servers = context.getBean(McpStdioServers.class);
				McpStdioServer boxed = servers.get("boxed");
				McpStdioServer open = servers.get("open");
				for (String tool : List.of("unix_run", "unix_var_tmp", "unix_listed", "unix_abstract")) {
					assertThat(call(boxed, tool)).as(tool).startsWith("denied: ").contains("Permission denied");
					assertThat(call(open, tool)).as(tool).isEqualTo("ok: connected");
				}
				// masked, and unreadable to the server's user: nothing of it is read
				assertThat(call(boxed, "read_shadow")).doesNotContainPattern("ok: read [1-9]");
				assertThat(call(open, "read_shadow")).containsPattern("^ok: read [1-9][0-9]* bytes$");
				assertThat(call(boxed, "read_hidden")).startsWith("denied: ").contains("No such file");
				assertThat(call(open, "read_hidden")).isEqualTo("ok: root-only-" + id);
				if (Sandboxes.ROOT) {
					// visible, but root's alone: the server runs as another user
					assertThat(call(boxed, "read_root_only")).startsWith("denied: ").contains("Permission denied");
					assertThat(call(open, "read_root_only")).isEqualTo("ok: root-only-" + id);
				}
				assertThat(call(boxed, "shm")).isEqualTo("denied: no segment " + shm);
				assertThat(call(open, "shm")).isEqualTo("ok: segment " + shm + " seen");
				assertThat(call(boxed, "keyring")).isEqualTo("denied: keyring: Function not implemented");
				assertThat(call(open, "keyring")).startsWith("ok: keyring ");
				assertThat(call(boxed, "io_uring")).isEqualTo("denied: io_uring: Function not implemented");
				assertThat(call(open, "io_uring")).startsWith("ok: io_uring ");
				// what a server needs keeps working
				for (McpStdioServer server : List.of(boxed, open)) {
					assertThat(call(server, "socketpair")).isEqualTo("ok: pair: x");
					assertThat(call(server, "child")).isEqualTo("ok: child");
				}
				// the swap: after the restart the sandbox refuses to bind what the
				// listed path has become
				for (McpStdioServer server : List.of(boxed, open)) {
					assertThat(call(server, "swap")).isEqualTo("ok: swapped");
					Await.within(Duration.ofSeconds(20))
						.until("the swap's exit seen", () -> server.exits(ExitCause.UNEXPECTED) == 1);
				}
				Await.within(Duration.ofSeconds(20))
					.until("the sandboxed server FAILED", () -> boxed.state() == ServerState.FAILED);
				Path cache = this.work.resolve("boxed").resolve("rw").resolve("sub").resolve("cache");
				assertThat(boxed.lastFailure()).contains("the listed path " + cache + " has a symbolic link now: "
						+ cache.getParent() + " (a process that may write its parent swapped it)");
				assertThat(this.work.resolve("boxed").resolve("victim").resolve("cache").resolve("probe.txt"))
					.doesNotExist();
				Await.within(Duration.ofSeconds(20))
					.until("the open server restarted",
							() -> open.state() == ServerState.RUNNING && open.restarts() == 1);
				assertThat(call(open, "write_cache")).startsWith("ok: ");
				assertThat(this.work.resolve("open").resolve("victim").resolve("cache").resolve("probe.txt"))
					.hasContent("written");
			});
			assertThat(log.messages(Level.WARN)).anySatisfy((line) -> assertThat(line)
				.startsWith("Restart of MCP server 'boxed' failed: Could not start MCP server 'boxed': its sandbox "
						+ "refused to start it: the listed path "));
		}
		finally {
			Collections.reverse(opened);
			for (AutoCloseable closeable : opened) {
				closeable.close();
			}
			FileSystemUtils.deleteRecursively(hiddenDirectory);
		}
	}

	/** Write a file only root may read (0600), its content root-only-ID. */
	private Path secret(Path file) throws IOException {
		Files.writeString(file, "root-only-" + this.fixtures.id());
		Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
		return file;
	}

	/** Listen on a Unix socket, without accepting: a connection is queued, and works. */
	private static Path unixListener(Path path, List<AutoCloseable> opened) throws IOException {
		ServerSocketChannel channel = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
		opened.add(() -> {
			channel.close();
			Files.deleteIfExists(path);
		});
		channel.bind(UnixDomainSocketAddress.of(path), 16);
		return path;
	}

	/** Listen on an abstract Unix socket (Java cannot bind one: python3 does). */
	private static AutoCloseable abstractListener(String name) throws Exception {
		Process process = new ProcessBuilder("/usr/bin/python3", "-c",
				"import socket, sys, time\ns = socket.socket(socket.AF_UNIX)\ns.bind('\\0' + sys.argv[1])\n"
						+ "s.listen(16)\nprint('ready', flush=True)\nsys.stdin.read()",
				name)
			.redirectErrorStream(true)
			.start();
		AutoCloseable close = () -> {
			process.getOutputStream().close();
			if (!process.waitFor(10, TimeUnit.SECONDS)) {
				process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		};
		byte[] ready = process.getInputStream().readNBytes(6);
		if (!new String(ready, StandardCharsets.UTF_8).equals("ready\n")) {
			close.close();
			throw new IllegalStateException("the abstract listener did not start: " + new String(ready));
		}
		return close;
	}

	/** Create a SysV shared memory segment, removed when {@code opened} is closed. */
	private static String sharedMemory(List<AutoCloseable> opened) throws Exception {
		Process ipcmk = new ProcessBuilder("ipcmk", "-M", "4096").redirectErrorStream(true).start();
		String said = new String(ipcmk.getInputStream().readNBytes(1000), StandardCharsets.UTF_8);
		assertThat(ipcmk.waitFor(10, TimeUnit.SECONDS)).isTrue();
		Matcher id = Pattern.compile("Shared memory id: (\\d+)").matcher(said);
		assertThat(id.find()).as("the segment of %s", said).isTrue();
		opened.add(() -> new ProcessBuilder("ipcrm", "-m", id.group(1)).start().waitFor(10, TimeUnit.SECONDS));
		return id.group(1);
	}

	@Test
	void theTreeIsCountedMarkedContainedAndEndedInTheSandbox() {
		ContainmentAccess.assumeCgroups();
		// ignores stdin's end and SIGTERM, with a child and a grandchild in a session
		// of its own that do the same
		this.runner.withPropertyValues(server("family", "sh", "stubborn-family.sh").toArray(String[]::new))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				McpStdioServer server = context.getBean(McpStdioServers.class).get("family");
				long root = server.pid();
				// bwrap, its init in the sandbox, the script, its child, the grandchild
				// (and their sleeps)
				Await.within(Duration.ofSeconds(10))
					.every(Duration.ofMillis(50))
					.until("the family counted", () -> server.treeStats().liveProcesses() >= 5);
				assertThat(server.treeStats().memoryBytes()).isPositive();
				List<Long> pids = this.fixtures.alive();
				assertThat(pids).contains(root).hasSizeGreaterThanOrEqualTo(5);
				String instance = List.of(read(root, "environ").split("\0"))
					.stream()
					.filter((variable) -> variable.startsWith("MCP_STDIO_INSTANCE="))
					.findFirst()
					.orElseThrow();
				String cgroup = read(root, "cgroup");
				assertThat(cgroup).isNotEqualTo(read(ProcessHandle.current().pid(), "cgroup"));
				int checked = 0;
				for (long pid : pids) {
					String environ = readIfLive(pid, "environ");
					String ownCgroup = readIfLive(pid, "cgroup");
					String status = readIfLive(pid, "status");
					if (environ == null || ownCgroup == null || status == null || field(status, "State").startsWith("Z")
							|| !Files.isDirectory(Path.of("/proc", Long.toString(pid)))) {
						// a sleep of the family's loops that ended since the list was
						// taken
						continue;
					}
					checked++;
					assertThat(environ.split("\0")).as("the markers of %s", pid)
						.contains("MCP_STDIO_SERVER=family", "MCP_STDIO_OWNER_PID=" + ProcessHandle.current().pid(),
								instance);
					assertThat(ownCgroup).as("the cgroup of %s", pid).isEqualTo(cgroup);
					if (pid != root) {
						assertThat(field(status, "NSpid").split("\\s+")).as("its pid in the sandbox, and ours")
							.hasSize(2);
					}
					if (!field(status, "Name").equals("bwrap")) {
						assertThat(field(status, "CapEff")).as("capabilities of %s", pid).isEqualTo("0000000000000000");
						assertThat(field(status, "NoNewPrivs")).isEqualTo("1");
					}
				}
				// bwrap, its init, the script, its child and the grandchild live on
				assertThat(checked).isGreaterThanOrEqualTo(5);
				StopResult result = server.stopServer();
				System.out.println("Sandboxed stubborn family of " + pids.size() + " processes stopped in "
						+ result.duration().toMillis() + " ms: " + result.outcome());
				// SIGTERM ends bwrap, and its sandbox with it: no SIGKILL was needed
				assertThat(result.outcome()).isEqualTo(ExitCause.TERMINATED);
				this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
			});
	}

	@Test
	void killMinus9OfTheJvmLeavesNothingOfTheSandbox() throws Exception {
		try (ForkedJvm jvm = ContainmentContexts.fork(server("family", "sh", "stubborn-family.sh"))) {
			assertThat(jvm.awaitLine(Duration.ofSeconds(120))).startsWith(ForkedMcpApplication.READY + " family=");
			Await.within(Duration.ofSeconds(10))
				.every(Duration.ofMillis(50))
				.until("the family started", () -> this.fixtures.alive().size() >= 5);
			long begin = System.nanoTime();
			jvm.process().destroyForcibly();
			Await.within(ContainmentContexts.guardBound().plusSeconds(5))
				.every(Duration.ofMillis(20))
				.until("the sandbox gone", () -> this.fixtures.alive().isEmpty());
			System.out.println("kill -9 of the JVM to its sandboxed server gone: "
					+ (System.nanoTime() - begin) / 1_000_000 + " ms");
		}
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void lazyStartRestartAndIdleStopHoldInTheSandbox() {
		try (LogCapture log = LogCapture.of(StdioServerProcess.class.getName())) {
			this.runner
				.withPropertyValues(server("lazy", "sh", "echo.sh", "start=lazy", "idle-timeout=1s",
						"restart.policy=on-failure", "restart.initial-backoff=100ms")
					.toArray(String[]::new))
				.run((context) -> {
					assertThat(context).hasNotFailed();
					McpStdioServer server = context.getBean(McpStdioServers.class).get("lazy");
					assertThat(server.state()).isEqualTo(ServerState.IDLE);
					assertThat(this.fixtures.alive()).isEmpty();
					assertThat(request(server, "ping", "{}")).contains("\"echo\":\"ping\"");
					StdioServerProcess first = server.process();
					// exits 5: the code comes out of the sandbox, and the policy restarts
					// it
					assertThat(server.request("crash", message("crash", "crash", "{}")))
						.failsWithin(Duration.ofSeconds(10));
					Await.that("restarted", () -> server.state() == ServerState.RUNNING && server.process() != first);
					assertThat(server.restarts()).isEqualTo(1);
					assertThat(server.exits(ExitCause.UNEXPECTED)).isEqualTo(1);
					assertThat(server.lastExit().exitCode()).isEqualTo(5);
					// IDLE from the moment its stop is claimed; its exit once the stop
					// ended
					Await.that("stopped for being idle",
							() -> server.state() == ServerState.IDLE && server.exits(ExitCause.IDLE) == 1);
					assertThat(server.lastExit().cause()).isEqualTo(ExitCause.IDLE);
					this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
				});
			assertThat(log.messages(Level.INFO)).filteredOn((line) -> line.startsWith("Started MCP server 'lazy'"))
				.hasSize(2)
				.allSatisfy((line) -> assertThat(line).contains(", sandboxed): sh "));
		}
	}

	private String call(McpStdioServer server, String tool) {
		String answer = request(server, "tools/call", "{\"name\":\"" + tool + "\"}");
		Matcher text = TEXT.matcher(answer);
		assertThat(text.find()).as("the text of %s", answer).isTrue();
		return text.group(1);
	}

	private String request(McpStdioServer server, String method, String params) {
		String id = "r" + this.ids.incrementAndGet();
		return server.request(id, message(id, method, params)).orTimeout(30, TimeUnit.SECONDS).join();
	}

	private static String message(String id, String method, String params) {
		return "{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"method\":\"" + method + "\",\"params\":" + params + "}";
	}

	/** Whether a connection is waiting to be accepted: none ever is otherwise. */
	private static boolean accepted(ServerSocket listener) throws IOException {
		try (Socket socket = listener.accept()) {
			return true;
		}
		catch (SocketTimeoutException ex) {
			return false;
		}
	}

	private static String read(long pid, String file) {
		try {
			return Files.readString(Path.of("/proc", Long.toString(pid), file));
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** Read a file of a process, {@code null} when the process is gone. */
	private static @Nullable String readIfLive(long pid, String file) {
		try {
			return Files.readString(Path.of("/proc", Long.toString(pid), file));
		}
		catch (IOException ex) {
			return null;
		}
	}

	private static String field(String status, String name) {
		Matcher field = Pattern.compile("(?m)^" + name + ":\\s*(.*)$").matcher(status);
		assertThat(field.find()).as(name).isTrue();
		return field.group(1).strip();
	}

}

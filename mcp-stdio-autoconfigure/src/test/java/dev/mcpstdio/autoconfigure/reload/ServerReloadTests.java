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

package dev.mcpstdio.autoconfigure.reload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import ch.qos.logback.classic.Level;
import dev.mcpstdio.autoconfigure.McpStdioAutoConfiguration;
import dev.mcpstdio.autoconfigure.config.ServerBeans;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers.Outcome;
import dev.mcpstdio.lifecycle.McpStdioServers.Reload;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.LogCapture;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.test.Sandboxes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of reloads of the server set from a servers file edited while the application
 * runs.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class ServerReloadTests {

	private final Fixtures fixtures;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(McpStdioAutoConfiguration.class));

	@TempDir
	Path temp;

	ServerReloadTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void anEditedFileAddsRemovesAndChangesServersByNameWithinFiveSeconds() throws IOException {
		Path file = this.temp.resolve("mcp.json");
		write(file, Map.of("kept", "echo.sh", "removed", "echo.sh", "changed", "echo.sh"));
		this.runner.withPropertyValues(properties(file)).run((context) -> {
			McpStdioServers servers = context.getBean(McpStdioServers.class);
			McpStdioServer kept = servers.get("kept");
			// each process by its handle, which knows its start time: a pid may be given
			// out again at once (the pid-reuse attack tests in the other fork steer
			// ns_last_pid back)
			ProcessHandle keptProcess = process(kept);
			McpStdioServer changed = servers.get("changed");
			ProcessHandle changedProcess = process(changed);
			ProcessHandle removedProcess = process(servers.get("removed"));
			write(file, Map.of("kept", "echo.sh", "changed", "echo.sh changed", "added", "echo.sh"));
			long written = System.nanoTime();
			Await.that("the edit applied", () -> servers.lastReload() != null);
			// an editor's write is applied well within the 5 s the contract gives
			assertThat(Duration.ofNanos(System.nanoTime() - written)).isLessThan(Duration.ofSeconds(30));
			Reload reload = servers.lastReload();
			assertThat(reload.outcome()).isEqualTo(Outcome.APPLIED);
			assertThat(reload.added()).containsExactly("added");
			assertThat(reload.removed()).containsExactly("removed");
			assertThat(reload.changed()).containsExactly("changed");
			// unchanged: the same server, process and pid
			assertThat(servers.get("kept")).isSameAs(kept);
			assertThat(process(kept)).isEqualTo(keptProcess);
			// changed: stopped, and started again with its new arguments
			McpStdioServer restarted = servers.get("changed");
			assertThat(restarted).isNotSameAs(changed);
			assertThat(changed.state()).isEqualTo(ServerState.STOPPED);
			assertThat(restarted.definition().spec().args()).endsWith("changed");
			assertThat(process(restarted)).isNotEqualTo(changedProcess);
			assertThat(Fixtures.isLive(changedProcess)).isFalse();
			// removed: stopped by the ordered shutdown and forgotten, its bean too
			assertThat(Fixtures.isLive(removedProcess)).isFalse();
			assertThat(context.containsBean(ServerBeans.beanName("removed"))).isFalse();
			assertThat(context.getBean(ServerBeans.beanName("added"))).isSameAs(servers.get("added"));
		});
		this.fixtures.assertNoneAlive(Duration.ofSeconds(10));
	}

	@Test
	void anUnchangedServerKeepsItsProcessAndAnInFlightCallThroughTenReloads() throws Exception {
		Path file = this.temp.resolve("mcp.json");
		write(file, Map.of("steady", "echo.sh", "toggled", "echo.sh"));
		this.runner.withPropertyValues(properties(file))
			.withPropertyValues("mcp.stdio.reload.enabled=false")
			.run((context) -> {
				McpStdioServers servers = context.getBean(McpStdioServers.class);
				McpStdioServer steady = servers.get("steady");
				long pid = pid(steady);
				// answered after 3 s: in flight through the reloads
				CompletableFuture<String> call = steady.request("slow-1",
						"{\"jsonrpc\":\"2.0\",\"id\":\"slow-1\",\"method\":\"slow\"}");
				for (int i = 0; i < 10; i++) {
					write(file, Map.of("steady", "echo.sh", "toggled", "echo.sh " + i));
					Reload reload = servers.reload();
					assertThat(reload.outcome()).isEqualTo(Outcome.APPLIED);
					assertThat(reload.changed()).containsExactly("toggled");
					assertThat(servers.get("steady")).isSameAs(steady);
					assertThat(pid(steady)).isEqualTo(pid);
				}
				assertThat(call.get(30, TimeUnit.SECONDS)).contains("\"echo\":\"slow\"");
				assertThat(servers.reload().outcome()).isEqualTo(Outcome.UNCHANGED);
				assertThat(steady.restarts()).isZero();
			});
		this.fixtures.assertNoneAlive(Duration.ofSeconds(10));
	}

	@Test
	void aBrokenFileIsRejectedWithEverythingLeftRunningThenFixedAndApplied() throws IOException {
		Path file = this.temp.resolve("mcp.json");
		write(file, Map.of("first", "echo.sh"));
		try (LogCapture log = LogCapture.of(ServerReloads.class.getName())) {
			this.runner.withPropertyValues(properties(file))
				.withPropertyValues("mcp.stdio.reload.enabled=false", "mcp.stdio.servers.configured.command=sh",
						"mcp.stdio.servers.configured.args=" + Fixtures.script("echo.sh"),
						"mcp.stdio.servers.configured.env." + Fixtures.MARKER + "=" + this.fixtures.id())
				.run((context) -> {
					McpStdioServers servers = context.getBean(McpStdioServers.class);
					long pid = pid(servers.get("first"));
					List<String> broken = List.of("{\"mcpServers\": {\"first\": ",
							"{\"mcpServers\": {\"first\": {\"args\": [\"x\"]}}}",
							"{\"mcpServers\": {\"configured\": {\"command\": \"sh\"}}}");
					for (String content : broken) {
						Files.writeString(file, content);
						Reload reload = servers.reload();
						assertThat(reload.outcome()).as(content).isEqualTo(Outcome.REJECTED);
						// one line naming server and property
						assertThat(reload.problem()).as(content)
							.contains("server '", "property '")
							.doesNotContain("\n");
						assertThat(servers.list()).extracting(McpStdioServer::name)
							.containsExactlyInAnyOrder("first", "configured");
						assertThat(pid(servers.get("first"))).isEqualTo(pid);
					}
					assertThat(log.messages(Level.ERROR)).hasSize(3)
						.allMatch((line) -> line.contains("MCP servers not reloaded"));
					write(file, Map.of("first", "echo.sh", "second", "echo.sh"));
					Reload fixed = servers.reload();
					assertThat(fixed.outcome()).isEqualTo(Outcome.APPLIED);
					assertThat(fixed.added()).containsExactly("second");
					assertThat(servers.get("second").state()).isEqualTo(ServerState.RUNNING);
					assertThat(pid(servers.get("first"))).isEqualTo(pid);
				});
		}
		this.fixtures.assertNoneAlive(Duration.ofSeconds(10));
	}

	@Test
	void aRequiredServerAddedByAReloadThatCannotStartIsFailedAndTheApplicationGoesOn() throws IOException {
		Path file = this.temp.resolve("mcp.json");
		write(file, Map.of("first", "echo.sh"));
		this.runner.withPropertyValues(properties(file))
			.withPropertyValues("mcp.stdio.reload.enabled=false", "mcp.stdio.defaults.required=true")
			.run((context) -> {
				McpStdioServers servers = context.getBean(McpStdioServers.class);
				write(file, Map.of("first", "echo.sh", "broken", "instant-exit.sh"));
				assertThat(servers.reload().outcome()).isEqualTo(Outcome.APPLIED);
				assertThat(servers.get("broken").state()).isEqualTo(ServerState.FAILED);
				assertThat(context).hasNotFailed();
				assertThat(servers.get("first").state()).isEqualTo(ServerState.RUNNING);
			});
		this.fixtures.assertNoneAlive(Duration.ofSeconds(10));
	}

	@Test
	void aReloadRacingARestartOfTheSameServerLeavesOneProcess() throws Exception {
		Path file = this.temp.resolve("mcp.json");
		write(file, Map.of("raced", "echo.sh"));
		this.runner.withPropertyValues(properties(file))
			.withPropertyValues("mcp.stdio.reload.enabled=false")
			.run((context) -> {
				McpStdioServers servers = context.getBean(McpStdioServers.class);
				for (int round = 0; round < 5; round++) {
					McpStdioServer before = servers.get("raced");
					write(file, Map.of("raced", "echo.sh " + round));
					CompletableFuture<Void> restart = CompletableFuture.runAsync(() -> {
						try {
							before.restartServer();
						}
						catch (RuntimeException ex) {
							// the reload stopped it first: no restart then
						}
					});
					assertThat(servers.reload().outcome()).isEqualTo(Outcome.APPLIED);
					restart.get(60, TimeUnit.SECONDS);
					McpStdioServer after = servers.get("raced");
					assertThat(after.state()).isEqualTo(ServerState.RUNNING);
					// one live tree: the new server's; the removed one did not start
					// again,
					// whichever came first
					assertThat(before.pid()).isNull();
					Await.that("one process", () -> this.fixtures.alive().size() == 1);
					assertThat(this.fixtures.alive()).containsExactly(after.pid());
				}
			});
		this.fixtures.assertNoneAlive(Duration.ofSeconds(10));
	}

	/**
	 * A reload resolves a listed path as it was first resolved: a swap made since (a
	 * component turned into a symbolic link, a listed link pointed elsewhere) fails the
	 * start the reload makes, instead of becoming what it binds.
	 */
	@Test
	void aReloadStartsNoServerOnAListedPathSwappedSince() throws IOException {
		Sandboxes.assume();
		Sandboxes.readable(this.temp);
		Path cache = Sandboxes
			.writable(Files.createDirectories(this.temp.resolve("rw").resolve("sub").resolve("cache")));
		Files.createDirectories(this.temp.resolve("victim").resolve("cache"));
		Path real = Sandboxes.readable(Files.createDirectories(this.temp.resolve("tools-1")));
		Path other = Sandboxes.readable(Files.createDirectories(this.temp.resolve("tools-2")));
		Path link = Files.createSymbolicLink(this.temp.resolve("tools"), real);
		Path file = this.temp.resolve("mcp.json");
		write(file, Map.of("boxed", "echo.sh"));
		this.runner.withPropertyValues(properties(file))
			.withPropertyValues("mcp.stdio.reload.enabled=false", "mcp.stdio.defaults.sandbox.enabled=true",
					"mcp.stdio.defaults.sandbox.read-write[0]=" + cache,
					"mcp.stdio.defaults.sandbox.read-only[0]=" + link)
			.run((context) -> {
				McpStdioServers servers = context.getBean(McpStdioServers.class);
				McpStdioServer boxed = servers.get("boxed");
				pid(boxed);
				// the listed link, resolved once
				assertThat(boxed.definition().spec().sandbox().readOnly()).containsExactly(real);
				Files.move(cache.getParent(), this.temp.resolve("rw").resolve("sub.old"));
				Files.createSymbolicLink(cache.getParent(), this.temp.resolve("victim"));
				Files.delete(link);
				Files.createSymbolicLink(link, other);
				write(file, Map.of("boxed", "echo.sh changed"));
				assertThat(servers.reload().changed()).containsExactly("boxed");
				McpStdioServer reloaded = servers.get("boxed");
				Await.that("the reloaded server FAILED", () -> reloaded.state() == ServerState.FAILED);
				assertThat(reloaded.definition().spec().sandbox().readOnly()).containsExactly(real);
				assertThat(reloaded.lastFailure()).contains("its sandbox refused to start it: the listed path " + cache
						+ " has a symbolic link now: " + cache.getParent());
				assertThat(reloaded.pid()).isNull();
			});
		this.fixtures.assertNoneAlive(Duration.ofSeconds(10));
	}

	private String[] properties(Path file) {
		return new String[] { "mcp.stdio.servers-configuration=" + file,
				"mcp.stdio.defaults.shutdown.drain-timeout=500ms", "mcp.stdio.defaults.shutdown.stdin-close-timeout=1s",
				"mcp.stdio.defaults.shutdown.terminate-timeout=1s" };
	}

	/** Write the file whole, as an editor that saves by renaming a new file over it. */
	private void write(Path file, Map<String, String> servers) throws IOException {
		List<String> entries = new ArrayList<>();
		servers.forEach((name, command) -> {
			String[] words = command.split(" ");
			StringBuilder args = new StringBuilder("\"" + Fixtures.script(words[0]) + "\"");
			for (int i = 1; i < words.length; i++) {
				args.append(", \"").append(words[i]).append('"');
			}
			entries.add("\"" + name + "\": {\"command\": \"sh\", \"args\": [" + args + "], \"env\": {\""
					+ Fixtures.MARKER + "\": \"" + this.fixtures.id() + "\"}}");
		});
		Path next = file.resolveSibling(file.getFileName() + ".new");
		Files.writeString(next, "{\"mcpServers\": {" + String.join(", ", entries) + "}}");
		Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
	}

	private static ProcessHandle process(McpStdioServer server) {
		return ProcessHandle.of(pid(server)).orElseThrow();
	}

	private static long pid(McpStdioServer server) {
		Await.that("'" + server.name() + "' running", () -> server.pid() != null);
		return server.pid();
	}

}

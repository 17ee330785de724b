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

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import dev.mcpstdio.McpServerStartupException;
import dev.mcpstdio.McpServerExitedException;
import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.server.ExitCause;
import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.lifecycle.forked.ForkedMcpApplication;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.test.TestHost;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.DefaultLifecycleProcessor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * Tests of {@link McpStdioServer} as a lifecycle bean of a real application context, with
 * real processes: parallel start and stop, every way an application stops, and start-up
 * that fails.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class McpStdioServerLifecycleTests {

	private static final AtomicReference<List<Long>> aliveSeen = new AtomicReference<>();

	private static final AtomicReference<String> currentMarker = new AtomicReference<>();

	private final Fixtures fixtures;

	McpStdioServerLifecycleTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@BeforeEach
	void forgetWhatAnEarlierTestRecorded() {
		LifecycleApplications.phaseStart.set(0);
		LifecycleApplications.phaseEnd.set(0);
		aliveSeen.set(null);
		currentMarker.set(this.fixtures.id());
	}

	@Test
	void fiveServersCloseInAboutTheSlowestServersTime() {
		Map<String, String> servers = LifecycleApplications.fiveServers();
		Map<String, Long> alone = new LinkedHashMap<>();
		Map<String, ExitCause> causes = new LinkedHashMap<>();
		for (Map.Entry<String, String> server : servers.entrySet()) {
			Map<String, Object> properties = LifecycleApplications.shutdownBounds();
			fiveServersServer(properties, server.getKey(), server.getValue());
			McpStdioServer bean;
			long begin;
			try (ConfigurableApplicationContext context = LifecycleApplications.run(properties)) {
				bean = context.getBean(McpStdioServers.class).get(server.getKey());
				assertThat(bean.state())
					.isEqualTo(server.getKey().equals("crashed") ? ServerState.FAILED : ServerState.RUNNING);
				begin = System.nanoTime();
			}
			alone.put(server.getKey(), millisSince(begin));
			causes.put(server.getKey(), bean.lastExit().cause());
			this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
		}
		assertThat(causes).containsEntry("exits-on-eof", ExitCause.CLEAN)
			.containsEntry("ignores-eof", ExitCause.TERMINATED)
			.containsEntry("ignores-sigterm", ExitCause.KILLED)
			.containsEntry("crashed", ExitCause.UNEXPECTED);
		Map<String, Object> properties = LifecycleApplications.shutdownBounds();
		servers.forEach((name, script) -> fiveServersServer(properties, name, script));
		McpStdioServers registry;
		long begin;
		try (ConfigurableApplicationContext context = LifecycleApplications.run(properties)) {
			registry = context.getBean(McpStdioServers.class);
			assertThat(registry.list()).extracting(McpStdioServer::state)
				.containsExactly(ServerState.RUNNING, ServerState.RUNNING, ServerState.RUNNING, ServerState.RUNNING,
						ServerState.FAILED);
			begin = System.nanoTime();
		}
		long together = millisSince(begin);
		assertThat(this.fixtures.alive()).isEmpty();
		assertThat(registry.get("ignores-sigterm").lastExit().cause()).isEqualTo(ExitCause.KILLED);
		assertThat(registry.get("ignores-eof").lastExit().cause()).isEqualTo(ExitCause.TERMINATED);
		long slowest = alone.values().stream().mapToLong(Long::longValue).max().orElseThrow();
		// The two slow ones take 3s each alone: one after the other they would take
		// the slowest + 3s; in parallel the slowest and some overhead. The figures are
		// measured by the bench module (docs/configuration.md)
		assertThat(slowest).as("the slowest alone, of %s", alone).isGreaterThanOrEqualTo(3000);
		assertThat(together).as("all five together; alone %s", alone)
			.isGreaterThanOrEqualTo(3000)
			.isLessThan(slowest + 2000);
	}

	private void fiveServersServer(Map<String, Object> properties, String name, String script) {
		server(properties, name, script);
		String prefix = "mcp.stdio.servers." + name + ".shutdown.";
		if (name.equals("ignores-eof")) {
			// 3s to stop: the stdin-close wait, then SIGTERM
			properties.put(prefix + "stdin-close-timeout", "3s");
		}
		if (name.equals("ignores-sigterm")) {
			// 3s to stop: the stdin-close wait, the SIGTERM wait, then SIGKILL
			properties.put(prefix + "terminate-timeout", "2s");
		}
	}

	@Test
	void sigtermToTheJvmStopsEveryServer() throws Exception {
		try (ForkedJvm jvm = fork(false)) {
			List<Long> pids = serverPids(jvm.awaitLine(Duration.ofSeconds(90)));
			assertThat(pids).hasSize(3).doesNotContainNull();
			assertThat(this.fixtures.alive()).containsAll(pids);
			// SIGTERM (through the handle: Process.destroy() would also close its output)
			assertThat(jvm.process().toHandle().destroy()).isTrue();
			int exitCode = jvm.awaitExit(Duration.ofSeconds(60));
			assertThat(exitCode).as("exit code, output:%n%s", String.join("\n", jvm.output())).isEqualTo(143);
			assertThat(this.fixtures.alive()).isEmpty();
			assertThat(String.join("\n", jvm.output())).contains("Stopped MCP server 'stubborn'");
		}
	}

	@Test
	void springApplicationExitStopsEveryServer() throws Exception {
		try (ForkedJvm jvm = fork(true)) {
			List<Long> pids = serverPids(jvm.awaitLine(Duration.ofSeconds(90)));
			assertThat(pids).hasSize(3).doesNotContainNull();
			int exitCode = jvm.awaitExit(Duration.ofSeconds(60));
			assertThat(exitCode).as("exit code, output:%n%s", String.join("\n", jvm.output())).isEqualTo(42);
			assertThat(this.fixtures.alive()).isEmpty();
			assertThat(String.join("\n", jvm.output())).contains("Stopped MCP server 'stubborn'");
		}
	}

	@Test
	void startUpThatAbortsAfterTwoServersStartedLeavesNone() {
		Map<String, Object> properties = LifecycleApplications.shutdownBounds();
		server(properties, "first", "echo.sh");
		server(properties, "second", "serves-ignores-sigterm.sh");
		assertThatException().isThrownBy(() -> LifecycleApplications.run(properties, FailsAfterServersStarted.class))
			.havingRootCause()
			.isExactlyInstanceOf(IllegalStateException.class)
			.withMessage("a later bean failed");
		// both had started when the later bean failed, and none is left
		assertThat(aliveSeen.get()).hasSize(2);
		assertThat(this.fixtures.alive()).isEmpty();
	}

	@Test
	void requiredServerThatExitsAtOnceFailsStartUpAndStopsTheOthers() {
		Map<String, Object> properties = LifecycleApplications.shutdownBounds();
		server(properties, "other", "serves-ignores-eof.sh");
		server(properties, "broken", "instant-exit.sh");
		properties.put("mcp.stdio.servers.broken.required", "true");
		Throwable failure = catchFailure(() -> LifecycleApplications.run(properties));
		McpServerStartupException startup = findCause(failure, McpServerStartupException.class);
		assertThat(startup).as("McpServerStartupException in %s", failure).isNotNull();
		assertThat(startup.serverName()).isEqualTo("broken");
		assertThat(startup.getCause()).isInstanceOf(McpServerExitedException.class);
		assertThat(startup.getMessage()).contains("MCP server 'broken' is required but could not start")
			.contains("exit code 3")
			.contains("boom: missing dependency");
		assertThat(this.fixtures.alive()).isEmpty();
	}

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void requiredServerThatNeedsAWithheldVariableFailsWithTheHintAndTheFailureAnalysis(CapturedOutput output) {
		String token = "MCP_STDIO_TEST_TOKEN";
		assertThat(System.getenv(token)).as("set by the surefire configuration").isNotNull();
		Map<String, Object> properties = LifecycleApplications.shutdownBounds();
		server(properties, "needy", "needs-token.sh");
		properties.put("mcp.stdio.servers.needy.required", "true");
		Throwable failure = catchFailure(() -> LifecycleApplications.run(properties));
		McpServerStartupException startup = findCause(failure, McpServerStartupException.class);
		assertThat(startup).as("McpServerStartupException in %s", failure).isNotNull();
		String hint = "Hint: the server's stderr names " + token + ", a variable of the application that the server "
				+ "did not get (a server gets only an allow-list of the application's environment); pass it with "
				+ "mcp.stdio.servers.needy.env." + token + "=${" + token + "} or set "
				+ "mcp.stdio.servers.needy.inherit-env=true";
		assertThat(startup.getMessage()).isEqualTo("MCP server 'needy' is required but could not start: MCP server "
				+ "'needy' process exited unexpectedly with exit code 2; stderr: Error: " + token + " is not set\n"
				+ hint);
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("Description:\n\n" + startup.getMessage())
			.contains("Action:\n\nMake MCP server 'needy' start")
			.doesNotContain(System.getenv(token));
		// the advice works: forwarding the one variable lets the server start
		properties.put("mcp.stdio.servers.needy.env." + token, "${" + token + "}");
		try (ConfigurableApplicationContext context = LifecycleApplications.run(properties)) {
			assertThat(context.getBean(McpStdioServers.class).get("needy").state()).isEqualTo(ServerState.RUNNING);
		}
	}

	@Test
	void serverThatIsNotRequiredFailsAloneAndStartsOnce() {
		Map<String, Object> properties = LifecycleApplications.shutdownBounds();
		server(properties, "a-slow", "slow-init.sh");
		server(properties, "b-broken", "instant-exit.sh");
		try (ConfigurableApplicationContext context = LifecycleApplications.run(properties)) {
			McpStdioServers servers = context.getBean(McpStdioServers.class);
			assertThat(servers.get("a-slow").state()).isEqualTo(ServerState.RUNNING);
			McpStdioServer broken = servers.get("b-broken");
			assertThat(broken.state()).isEqualTo(ServerState.FAILED);
			ExitInfo exit = broken.lastExit();
			assertThat(exit.exitCode()).isEqualTo(3);
			assertThat(exit.stderrTail()).contains("boom: missing dependency");
			// started once (lifecycleStartAwaitsTheParallelStartInsteadOfStartingAgain
			// pins the ordering where a second start could happen)
			long exits = 0;
			for (ExitCause cause : ExitCause.values()) {
				exits += broken.exits(cause);
			}
			assertThat(exits).isEqualTo(1);
		}
	}

	@Test
	void aNewContextStartsOnlyWhenTheOldOnesProcessesAreAllGone() {
		Map<String, Object> properties = LifecycleApplications.shutdownBounds();
		server(properties, "files", "serves-ignores-sigterm.sh");
		server(properties, "search", "with-children.sh");
		// a phase timeout far below the stop of a SIGTERM-deaf server: close must still
		// wait for every process to be gone
		List<ProcessHandle> firstProcesses;
		try (ConfigurableApplicationContext first = LifecycleApplications.run(properties, ShortShutdownPhase.class)) {
			List<Long> firstPids = pids(first);
			assertThat(this.fixtures.alive()).containsAll(firstPids);
			firstProcesses = processes(firstPids);
		}
		assertThat(this.fixtures.alive()).isEmpty();
		try (ConfigurableApplicationContext second = LifecycleApplications.run(properties,
				RecordsAliveBeforeServersStart.class)) {
			assertThat(aliveSeen.get()).isEmpty();
			List<Long> secondPids = pids(second);
			// other processes, told apart by pid and start time: a pid of the first
			// context's may be given out again at once (the pid-reuse attack tests in
			// the other fork steer ns_last_pid back)
			assertThat(processes(secondPids)).doesNotContainAnyElementsOf(firstProcesses);
			assertThat(this.fixtures.alive()).containsAll(secondPids);
		}
	}

	@Test
	void aServerGivenUpByItsClientIsNotStartedAgainByTheLifecycle() {
		McpStdioServer server = new McpStdioServer(SpecDefaults.definition(
				this.fixtures.spec("given-up", "echo.sh").toBuilder().startupTimeout(Duration.ofSeconds(20)).build()),
				TestHost.shared());
		try {
			// a client joined the start, then gave the server up before the lifecycle's
			// start came (as Spring AI's integration does with a server it leaves out)
			server.clientConnection().setSelfInitialize(false);
			server.clientConnection().joinStart();
			assertThat(server.state()).isEqualTo(ServerState.RUNNING);
			server.clientConnection().giveUp("left out of Spring AI's clients");
			assertThat(server.state()).isEqualTo(ServerState.FAILED);
			server.start();
			assertThat(server.state()).isEqualTo(ServerState.FAILED);
			assertThat(server.lastFailure()).isEqualTo("left out of Spring AI's clients");
			assertThat(server.process().exitInfo()).as("the one process, ended").isNotNull();
			assertThat(this.fixtures.started()).as("processes started").hasSize(1);
		}
		finally {
			server.stop();
		}
	}

	@Test
	void lifecycleStartAwaitsTheParallelStartInsteadOfStartingAgain() {
		McpStdioServer broken = new McpStdioServer(
				SpecDefaults.definition(this.fixtures.spec("broken", "instant-exit.sh")
					.toBuilder()
					.startupTimeout(Duration.ofSeconds(20))
					.build()),
				TestHost.shared());
		McpStdioServers registry = new McpStdioServers(List.of(broken));
		try {
			registry.start();
			Await.within(Duration.ofSeconds(20)).until("FAILED", () -> broken.state() == ServerState.FAILED);
			// the lifecycle's start() of this server comes after its parallel start
			// failed
			broken.start();
			assertThat(broken.state()).isEqualTo(ServerState.FAILED);
			long exits = 0;
			for (ExitCause cause : ExitCause.values()) {
				exits += broken.exits(cause);
			}
			assertThat(exits).as("processes started").isEqualTo(1);
		}
		finally {
			Fixtures.cleanUp(List.<SmartLifecycle>of(broken, registry), SmartLifecycle::stop, () -> {
			});
		}
	}

	@Test
	void aStopThatComesWhileAStartIsPendingWins() throws Exception {
		// what destroy() does when start-up aborts while other servers are still starting
		for (int i = 0; i < 20; i++) {
			McpStdioServer server = new McpStdioServer(SpecDefaults.definition(this.fixtures.spec("pending", "echo.sh")
				.toBuilder()
				.startupTimeout(Duration.ofSeconds(20))
				.build()), TestHost.shared());
			java.util.concurrent.CompletableFuture<Void> start = server.startInBackground();
			try {
				server.stopServer();
				start.get(30, java.util.concurrent.TimeUnit.SECONDS);
			}
			catch (java.util.concurrent.ExecutionException ex) {
				assertThat(ex.getCause()).isInstanceOf(dev.mcpstdio.McpServerNotRunningException.class);
			}
			finally {
				// a failed assertion below must not leave a server of the next round
				server.stopServer();
			}
			// whichever came first, nothing runs once both are done
			assertThat(server.state()).isNotEqualTo(ServerState.RUNNING);
			assertThat(this.fixtures.alive()).isEmpty();
		}
	}

	@Test
	void serversStartInParallel() {
		Map<String, Object> properties = LifecycleApplications.shutdownBounds();
		for (String name : List.of("slow-1", "slow-2", "slow-3")) {
			server(properties, name, "slow-init.sh", "2");
		}
		try (ConfigurableApplicationContext context = LifecycleApplications.run(properties,
				LifecycleApplications.MeasuresServerStart.class)) {
			assertThat(context.getBean(McpStdioServers.class).list()).allSatisfy((server) -> {
				assertThat(server.state()).isEqualTo(ServerState.RUNNING);
				assertThat(server.isInitialized()).isTrue();
			});
			long millis = (LifecycleApplications.phaseEnd.get() - LifecycleApplications.phaseStart.get()) / 1_000_000;
			// each answers initialize 2s after it starts: one after the other they
			// could not take less than 6s (the figure is measured by the bench module)
			assertThat(millis).isGreaterThanOrEqualTo(2000L).isLessThan(6000L);
		}
	}

	@Test
	void sigtermToTheJvmStopsEveryUsersInstanceInParallel() throws Exception {
		try (ForkedJvm jvm = forkPerUser()) {
			List<Long> pids = serverPids(jvm.awaitLine(Duration.ofSeconds(90)));
			assertThat(pids).hasSize(3).doesNotContainNull().doesNotHaveDuplicates();
			// each instance is a whole tree: the server, two children and a grandchild
			Await.that("every instance's children", () -> this.fixtures.alive().size() >= 3 * 4);
			assertThat(jvm.process().toHandle().destroy()).isTrue();
			int exitCode = jvm.awaitExit(Duration.ofSeconds(60));
			assertThat(exitCode).as("exit code, output:%n%s", String.join("\n", jvm.output())).isEqualTo(143);
			assertThat(this.fixtures.alive()).isEmpty();
			assertThat(String.join("\n", jvm.output())).doesNotContain("alice", "bob", "carol");
		}
	}

	@Test
	void killOfTheJvmEndsEveryUsersInstanceByTheGuard() throws Exception {
		try (ForkedJvm jvm = forkPerUser()) {
			List<Long> pids = serverPids(jvm.awaitLine(Duration.ofSeconds(90)));
			assertThat(pids).hasSize(3).doesNotContainNull();
			Await.that("every instance's children", () -> this.fixtures.alive().size() >= 3 * 4);
			jvm.process().destroyForcibly();
			jvm.awaitExit(Duration.ofSeconds(30));
			this.fixtures.assertNoneAlive(Duration.ofSeconds(30));
		}
	}

	private ForkedJvm fork(boolean exit) throws Exception {
		Map<String, Object> properties = LifecycleApplications.shutdownBounds();
		server(properties, "echo", "echo.sh");
		server(properties, "stubborn", "serves-ignores-sigterm.sh");
		server(properties, "parent", "with-children.sh");
		properties.put("forked.exit", exit);
		return fork(properties);
	}

	/** One per-user server, with an instance for each of three users. */
	private ForkedJvm forkPerUser() throws Exception {
		Map<String, Object> properties = LifecycleApplications.shutdownBounds();
		server(properties, "gh", "with-children.sh");
		properties.put("mcp.stdio.servers.gh.instances", "per-user");
		properties.put("forked.users", "alice,bob,carol");
		return fork(properties);
	}

	private static ForkedJvm fork(Map<String, Object> properties) throws Exception {
		List<String> args = new ArrayList<>(List.of("--spring.main.web-application-type=none",
				"--spring.main.keep-alive=true", "--spring.main.banner-mode=off",
				"--spring.ai.mcp.client.enabled=false", "--management.endpoints.enabled-by-default=false"));
		properties.forEach((key, value) -> args.add("--" + key + "=" + value));
		return ForkedJvm.start(ForkedMcpApplication.class.getName(), ForkedMcpApplication.READY, args);
	}

	private static List<Long> serverPids(String readyLine) {
		List<Long> pids = new ArrayList<>();
		for (String pair : readyLine.substring(ForkedMcpApplication.READY.length()).trim().split(",")) {
			String pid = pair.substring(pair.indexOf('=') + 1);
			pids.add("null".equals(pid) ? null : Long.valueOf(pid));
		}
		return pids;
	}

	private static List<Long> pids(ConfigurableApplicationContext context) {
		return context.getBean(McpStdioServers.class).list().stream().map(McpStdioServer::pid).toList();
	}

	/** The running processes of some pids: each one's handle knows its start time. */
	private static List<ProcessHandle> processes(List<Long> pids) {
		List<ProcessHandle> processes = pids.stream().map(ProcessHandle::of).flatMap(Optional::stream).toList();
		assertThat(processes).as("the processes of %s, alive", pids).hasSameSizeAs(pids);
		return processes;
	}

	private static Throwable catchFailure(Runnable action) {
		try {
			action.run();
		}
		catch (Throwable ex) {
			return ex;
		}
		throw new AssertionError("Expected start-up to fail");
	}

	private static <T extends Throwable> T findCause(Throwable failure, Class<T> type) {
		for (Throwable candidate = failure; candidate != null; candidate = candidate.getCause()) {
			if (type.isInstance(candidate)) {
				return type.cast(candidate);
			}
		}
		return null;
	}

	private void server(Map<String, Object> properties, String name, String script, String... args) {
		LifecycleApplications.server(properties, this.fixtures, name, script, args);
	}

	private static long millisSince(long begin) {
		return (System.nanoTime() - begin) / 1_000_000;
	}

	/** A bean that fails in the phase after the servers started. */
	@Configuration(proxyBeanMethods = false)
	static class FailsAfterServersStarted {

		@Bean
		SmartLifecycle failsAfterServersStarted(McpStdioServers servers) {
			return new LifecycleApplications.PhaseBean(Integer.MAX_VALUE, () -> {
				List<Long> started = servers.list().stream().map(McpStdioServer::pid).toList();
				aliveSeen
					.set(started.stream().filter((pid) -> pid != null && ProcessHandle.of(pid).isPresent()).toList());
				throw new IllegalStateException("a later bean failed");
			});
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ShortShutdownPhase {

		@Bean
		static DefaultLifecycleProcessor lifecycleProcessor() {
			DefaultLifecycleProcessor processor = new DefaultLifecycleProcessor();
			processor.setTimeoutPerShutdownPhase(200);
			return processor;
		}

	}

	/** Records the marked processes alive just before the servers start. */
	@Configuration(proxyBeanMethods = false)
	static class RecordsAliveBeforeServersStart {

		@Bean
		SmartLifecycle recordsAlive() {
			return new LifecycleApplications.PhaseBean(McpStdioServer.PHASE - 2,
					() -> aliveSeen.set(aliveOfCurrentTest()));
		}

	}

	private static List<Long> aliveOfCurrentTest() {
		return Fixtures.alive(currentMarker.get());
	}

}

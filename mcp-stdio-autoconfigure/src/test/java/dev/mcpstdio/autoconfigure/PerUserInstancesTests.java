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

package dev.mcpstdio.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import ch.qos.logback.classic.Level;
import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.actuate.McpServersEndpoint;
import dev.mcpstdio.actuate.McpServersHealthIndicator;
import dev.mcpstdio.actuate.McpStdioMetrics;
import dev.mcpstdio.autoconfigure.config.ServerBeans;
import dev.mcpstdio.core.server.ExitCause;
import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.LogCapture;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.test.OAuth2Clients;
import dev.mcpstdio.test.Sandboxes;
import dev.mcpstdio.lifecycle.ServerUsers;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.context.SecurityContextImpl;
import org.springframework.security.oauth2.client.InMemoryOAuth2AuthorizedClientService;
import org.springframework.security.oauth2.client.OAuth2AuthorizedClientService;
import org.springframework.security.oauth2.client.registration.InMemoryClientRegistrationRepository;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Per-user servers with real processes: each user of Spring Security gets their own
 * instance, with their own OAuth2 access token from an in-memory authorized client
 * service.
 *
 * @author mcp-stdio authors
 */
@ExtendWith({ NoProcessLeft.class, OutputCaptureExtension.class })
class PerUserInstancesTests {

	static final String ALICE_TOKEN = "gho_alice_0123456789abcdef";

	static final String BOB_TOKEN = "gho_bob_fedcba9876543210";

	private final Fixtures fixtures;

	private final ApplicationContextRunner shared;

	private final ApplicationContextRunner runner;

	PerUserInstancesTests(Fixtures fixtures) {
		this.fixtures = fixtures;
		String prefix = "mcp.stdio.servers.gh.";
		this.shared = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(McpStdioAutoConfiguration.class))
			.withPropertyValues(prefix + "command=sh", prefix + "args[0]=" + Fixtures.script("per-user.sh"),
					prefix + "env." + Fixtures.MARKER + "=" + fixtures.id(), prefix + "shutdown.drain-timeout=300ms",
					prefix + "shutdown.stdin-close-timeout=500ms", prefix + "shutdown.terminate-timeout=500ms");
		this.runner = this.shared.withUserConfiguration(Tokens.class)
			.withPropertyValues(prefix + "instances=per-user", prefix + "user-env.USER_TOKEN=oauth2:github");
	}

	@AfterEach
	void noUser() {
		SecurityContextHolder.clearContext();
	}

	static void signIn(String user) {
		// a context of their own, as each request gets: one handed to a task is not
		// changed by the next sign-in
		SecurityContextHolder.setContext(new SecurityContextImpl(
				new TestingAuthenticationToken(user, null, AuthorityUtils.createAuthorityList("USER"))));
	}

	static String whoami(McpStdioServer server, String id) {
		return server.request(id, "{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"method\":\"whoami\"}")
			.orTimeout(30, TimeUnit.SECONDS)
			.join();
	}

	@Test
	void twoUsersCallingConcurrentlyEachReachTheirOwnInstanceOnly(CapturedOutput output) {
		this.runner.run((context) -> {
			McpStdioServer server = context.getBean(McpStdioServers.class).get("gh");
			assertThat(server.state()).isEqualTo(ServerState.IDLE);
			assertThat(server.definition().demand().idleTimeout()).isEqualTo(Duration.ofMinutes(10));
			AtomicInteger wrong = new AtomicInteger();
			AtomicInteger calls = new AtomicInteger();
			ExecutorService threads = Executors.newFixedThreadPool(4);
			try {
				List<Future<?>> done = new ArrayList<>();
				for (int t = 0; t < 4; t++) {
					String user = (t % 2 == 0) ? "alice" : "bob";
					String token = (t % 2 == 0) ? ALICE_TOKEN : BOB_TOKEN;
					int thread = t;
					done.add(threads.submit(() -> {
						signIn(user);
						for (int i = 0; i < 2500; i++) {
							if (!whoami(server, "w" + thread + "-" + i).contains("\"token\":\"" + token + "\"")) {
								wrong.incrementAndGet();
							}
							calls.incrementAndGet();
						}
						return null;
					}));
				}
				for (Future<?> future : done) {
					future.get(5, TimeUnit.MINUTES);
				}
			}
			finally {
				threads.shutdownNow();
			}
			assertThat(calls.get()).isEqualTo(10_000);
			assertThat(wrong.get()).as("answers from another user's instance").isZero();
			Map<String, McpStdioServer> instances = server.instances();
			assertThat(instances).hasSize(2);
			assertThat(instances.keySet()).noneMatch((key) -> key.contains("alice") || key.contains("bob"));
			assertThat(instances.values()).allMatch((instance) -> instance.state() == ServerState.RUNNING);
			assertThat(server.treeStats().liveProcesses()).isEqualTo(2);
			instances.values().forEach((instance) -> assertThat(instance.treeStats().liveProcesses()).isEqualTo(1));
			// the endpoint: the count and each instance under its opaque key, no token
			String json = JsonMapper.shared()
				.writeValueAsString(
						new McpServersEndpoint(context.getBean(McpStdioServers.class), Show.ALWAYS).servers());
			assertThat(json).contains("\"instances\":2").contains(instances.keySet());
			assertThat(json).doesNotContain(ALICE_TOKEN, BOB_TOKEN, "alice", "bob");
			SimpleMeterRegistry registry = new SimpleMeterRegistry();
			new McpStdioMetrics(context.getBean(McpStdioServers.class)).bindTo(registry);
			assertThat(registry.get("mcp.stdio.instances").tag("server", "gh").gauge().value()).isEqualTo(2);
			assertThat(registry.get("mcp.stdio.processes").tag("server", "gh").gauge().value()).isEqualTo(2);
		});
		// each instance said its token on stderr: the log masks it
		assertThat(output.getOut()).contains("started with token ").doesNotContain(ALICE_TOKEN, BOB_TOKEN);
	}

	@Test
	void sandboxedEachUserGetsAnInstanceInASandboxOfItsOwnCountedAndEnded() {
		Sandboxes.assume();
		try (LogCapture log = LogCapture.of(StdioServerProcess.class.getName())) {
			this.runner.withPropertyValues("mcp.stdio.servers.gh.sandbox.enabled=true").run((context) -> {
				McpStdioServer server = context.getBean(McpStdioServers.class).get("gh");
				signIn("alice");
				assertThat(whoami(server, "a1")).contains("\"token\":\"" + ALICE_TOKEN + "\"");
				signIn("bob");
				assertThat(whoami(server, "b1")).contains("\"token\":\"" + BOB_TOKEN + "\"");
				assertThat(server.instances()).hasSize(2);
				// bwrap, its init and the server, twice
				Await.within(Duration.ofSeconds(10))
					.until("both sandboxes counted", () -> server.treeStats().liveProcesses() >= 6);
				assertThat(server.treeStats().memoryBytes()).isPositive();
			});
			assertThat(log.messages(Level.INFO)).filteredOn((line) -> line.startsWith("Started MCP server 'gh'"))
				.hasSize(2)
				.allSatisfy((line) -> assertThat(line).contains(", sandboxed): sh "));
		}
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void aCallWithoutAnAuthenticatedUserIsRefusedAtOnce() {
		this.runner.run((context) -> {
			McpStdioServer server = context.getBean(McpStdioServers.class).get("gh");
			assertThatExceptionOfType(McpStdioException.class).isThrownBy(() -> whoami(server, "n1"))
				.withMessageContaining("MCP server 'gh' runs one instance per user")
				.withMessageContaining("no authenticated user");
			SecurityContextHolder.getContext()
				.setAuthentication(new AnonymousAuthenticationToken("key", "anonymousUser",
						AuthorityUtils.createAuthorityList("ROLE_ANONYMOUS")));
			assertThatExceptionOfType(McpStdioException.class).isThrownBy(() -> whoami(server, "n2"))
				.withMessageContaining("no authenticated user");
			assertThat(server.instances()).isEmpty();
			assertThat(server.treeStats().liveProcesses()).isZero();
			// a user who never authorized the OAuth2 client gets no instance either
			signIn("mallory");
			assertThatExceptionOfType(McpStdioException.class).isThrownBy(() -> whoami(server, "n3"))
				.withMessageContaining("user-env USER_TOKEN (oauth2:github) has no value");
			assertThat(server.instances()).isEmpty();
			// it can start instances: up, whatever one user's call did
			Health health = new McpServersHealthIndicator(context.getBean(McpStdioServers.class), true).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("gh", "IDLE");
		});
	}

	@Test
	void beyondMaxInstancesTheLeastRecentlyUsedFreeOneIsStoppedElseTheCallWaitsThenIsRefused() {
		this.runner.withPropertyValues("mcp.stdio.servers.gh.max-instances=2", "mcp.stdio.servers.gh.instance-wait=3s")
			.run((context) -> {
				McpStdioServer server = context.getBean(McpStdioServers.class).get("gh");
				signIn("alice");
				assertThat(whoami(server, "a1")).contains(ALICE_TOKEN);
				McpStdioServer alices = server.instance();
				signIn("bob");
				assertThat(whoami(server, "b1")).contains(BOB_TOKEN);
				// carol's first call: alice's instance, used least recently, is stopped
				signIn("carol");
				assertThat(whoami(server, "c1")).contains("\"token\":\"gho_carol");
				assertThat(server.instances()).hasSize(2).doesNotContainValue(alices);
				Await.that("alice's instance stopped", () -> alices.state() == ServerState.STOPPED);
				Await.that("two processes", () -> server.treeStats().liveProcesses() == 2);
				// bob and carol each wait for an answer: alice waits instance-wait, then
				// is refused naming max-instances and the wait
				CompletableFuture<String> bobs = hang(server, "bob");
				CompletableFuture<String> carols = hang(server, "carol");
				signIn("alice");
				long start = System.nanoTime();
				assertThatExceptionOfType(McpStdioException.class).isThrownBy(() -> whoami(server, "a2"))
					.withMessageContaining("MCP server 'gh' has 2 instances (max-instances 2), all in use")
					.withMessageContaining("instance-wait (3s)");
				Duration waited = Duration.ofNanos(System.nanoTime() - start);
				// a generous bound for a loaded machine
				assertThat(waited).isGreaterThanOrEqualTo(Duration.ofMillis(2900)).isLessThan(Duration.ofSeconds(15));
				assertThat(bobs).isNotDone();
				assertThat(carols).isNotDone();
				// bob gives up on his request: his instance is free, and alice's waiting
				// call gets its place
				CompletableFuture<String> alicesCall = CompletableFuture.supplyAsync(() -> {
					signIn("alice");
					try {
						return whoami(server, "a3");
					}
					finally {
						SecurityContextHolder.clearContext();
					}
				});
				bobs.cancel(true);
				assertThat(alicesCall.get(30, TimeUnit.SECONDS)).contains(ALICE_TOKEN);
				assertThat(carols).isNotDone();
			});
	}

	@Test
	void theUserReachesTheThreadsOfTheApplicationsExecutor() {
		this.runner.withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class)).run((context) -> {
			McpStdioServer server = context.getBean(McpStdioServers.class).get("gh");
			AsyncTaskExecutor executor = context.getBean("applicationTaskExecutor", AsyncTaskExecutor.class);
			signIn("alice");
			Future<String> alices = executor.submit(() -> whoami(server, "e1"));
			signIn("bob");
			Future<String> bobs = executor.submit(() -> whoami(server, "e2"));
			assertThat(alices.get(30, TimeUnit.SECONDS)).contains(ALICE_TOKEN);
			assertThat(bobs.get(30, TimeUnit.SECONDS)).contains(BOB_TOKEN);
			// a thread the user was not handed to is refused, never given an instance
			ExecutorService own = Executors.newSingleThreadExecutor();
			try {
				assertThatExceptionOfType(ExecutionException.class)
					.isThrownBy(() -> own.submit(() -> whoami(server, "e3")).get(30, TimeUnit.SECONDS))
					.withMessageContaining("no authenticated user");
			}
			finally {
				own.shutdownNow();
			}
		});
	}

	@Test
	void aPerUserServerAddedByAReloadServesUsersAndSaysWhatItsExecutorsLack(CapturedOutput output) {
		// at start a shared server only: no decorator for the application's executors
		this.shared.withUserConfiguration(Tokens.class).run((context) -> {
			assertThat(context).doesNotHaveBean(ServerBeans.USER_TASK_DECORATOR);
			McpStdioServers servers = context.getBean(McpStdioServers.class);
			context.getEnvironment()
				.getPropertySources()
				.addFirst(new MapPropertySource("reloaded", Map.of("mcp.stdio.servers.gh.instances", "per-user",
						"mcp.stdio.servers.gh.user-env.USER_TOKEN", "oauth2:github")));
			assertThat(servers.reload().changed()).containsExactly("gh");
			McpStdioServer server = servers.get("gh");
			signIn("alice");
			assertThat(whoami(server, "r1")).contains(ALICE_TOKEN);
			signIn("bob");
			assertThat(whoami(server, "r2")).contains(BOB_TOKEN);
			assertThat(output.getOut()).contains("MCP server 'gh' runs per user since this reload, but the "
					+ "application's executors were built without the decorator that hands them the calling user");
		});
	}

	@Test
	void withoutSpringSecurityAPerUserServerIsAConfigurationErrorAndASharedOneRuns() {
		FilteredClassLoader noSecurity = new FilteredClassLoader("org.springframework.security.");
		this.runner.withClassLoader(noSecurity)
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("'mcp.stdio.servers.gh.instances': per-user needs Spring Security"));
		this.shared.withClassLoader(noSecurity).run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(ServerUsers.class);
			assertThat(whoami(context.getBean(McpStdioServers.class).get("gh"), "s1")).contains("\"token\":\"\"");
		});
	}

	private static CompletableFuture<String> hang(McpStdioServer server, String user) {
		signIn(user);
		try {
			CompletableFuture<String> pending = server.request("h-" + user,
					"{\"jsonrpc\":\"2.0\",\"id\":\"h-" + user + "\",\"method\":\"hang\"}");
			Await.that(user + "'s request pending", () -> server.instance().pendingRequests() == 1);
			return pending;
		}
		finally {
			SecurityContextHolder.clearContext();
		}
	}

	@Test
	void oneUsersInstanceStopsWhenIdleAndStartsAgainWithAFreshTokenWhileAnothersCallsGoOn() {
		this.runner.withPropertyValues("mcp.stdio.servers.gh.idle-timeout=1s").run((context) -> {
			McpStdioServer server = context.getBean(McpStdioServers.class).get("gh");
			OAuth2AuthorizedClientService service = context.getBean(OAuth2AuthorizedClientService.class);
			signIn("bob");
			assertThat(whoami(server, "b1")).contains(BOB_TOKEN);
			McpStdioServer bobs = server.instance();
			// by its handle, which knows its start time: a pid may be given out again at
			// once (the pid-reuse attack tests in the other fork steer ns_last_pid back)
			ProcessHandle bobsProcess = ProcessHandle.of(bobs.pid()).orElseThrow();
			// bob's token is refreshed: his running instance keeps the one it started
			// with
			OAuth2Clients.authorize(service, "bob", "gho_bob_refreshed_token_1");
			assertThat(whoami(server, "b2")).contains(BOB_TOKEN);
			SecurityContextHolder.clearContext();
			AtomicInteger alicesCalls = new AtomicInteger();
			CompletableFuture<Void> alice = CompletableFuture.runAsync(() -> {
				signIn("alice");
				long end = System.nanoTime() + Duration.ofSeconds(4).toNanos();
				while (System.nanoTime() < end) {
					assertThat(whoami(server, "a" + alicesCalls.incrementAndGet())).contains(ALICE_TOKEN);
					sleep(100);
				}
			});
			// stopped for being idle, it is gone: removed, and stopped for good
			Await.that("bob's instance gone", () -> bobs.state() == ServerState.STOPPED && bobs.pid() == null
					&& !server.instances().containsValue(bobs));
			assertThat(alice).isNotDone();
			signIn("bob");
			assertThat(whoami(server, "b3")).contains("gho_bob_refreshed_token_1");
			McpStdioServer bobsNew = server.instance();
			assertThat(bobsNew).isNotSameAs(bobs);
			assertThat(ProcessHandle.of(bobsNew.pid())).isPresent().get().isNotEqualTo(bobsProcess);
			alice.get(30, TimeUnit.SECONDS);
			assertThat(alicesCalls.get()).isGreaterThan(20);
			// what is gone is not shown: every instance listed is one that is not stopped
			assertThat(server.instances().values()).doesNotContain(bobs)
				.allMatch((instance) -> instance.state() != ServerState.STOPPED);
		});
	}

	@Test
	void maxProcessesHoldsForEachInstanceNotForTheirSum() {
		this.runner
			.withPropertyValues("mcp.stdio.servers.gh.max-processes=3", "mcp.stdio.resource-check-interval=200ms")
			.run((context) -> {
				McpStdioServer server = context.getBean(McpStdioServers.class).get("gh");
				Map<String, McpStdioServer> instances = new LinkedHashMap<>();
				for (String user : List.of("alice", "bob", "carol", "dave", "erin")) {
					signIn(user);
					whoami(server, "p-" + user);
					instances.put(user, server.instance());
				}
				// five processes in all, over 3: nothing is stopped, each instance has
				// one
				sleep(1000);
				assertThat(server.treeStats().liveProcesses()).isEqualTo(5);
				instances.values().forEach((instance) -> assertThat(instance.exits(ExitCause.PROCESS_LIMIT)).isZero());
				signIn("bob");
				assertThat(server.instance()
					.request("spawn", "{\"jsonrpc\":\"2.0\",\"id\":\"spawn\",\"method\":\"spawn\"}")
					.orTimeout(30, TimeUnit.SECONDS)
					.join()).contains("spawn");
				McpStdioServer bobs = instances.get("bob");
				Await.that("bob's instance stopped over its processes", () -> bobs.exits(ExitCause.PROCESS_LIMIT) == 1);
				// the others go on, each in its own process
				for (String user : List.of("alice", "carol", "dave", "erin")) {
					signIn(user);
					Long pid = instances.get(user).pid();
					assertThat(whoami(server, "q-" + user)).contains("gho_" + user);
					assertThat(server.instance()).isSameAs(instances.get(user));
					assertThat(server.instance().pid()).isEqualTo(pid);
					assertThat(server.instance().exits(ExitCause.PROCESS_LIMIT)).isZero();
				}
			});
	}

	@Test
	void stoppingTheServerStopsEveryInstanceAndRefusesNewOnes() {
		this.runner.run((context) -> {
			McpStdioServer server = context.getBean(McpStdioServers.class).get("gh");
			for (String user : List.of("alice", "bob", "carol")) {
				signIn(user);
				whoami(server, "s-" + user);
			}
			assertThat(server.treeStats().liveProcesses()).isEqualTo(3);
			server.stopServer();
			assertThat(server.state()).isEqualTo(ServerState.STOPPED);
			assertThat(server.instances()).isEmpty();
			assertThat(server.treeStats().liveProcesses()).isZero();
			assertThatExceptionOfType(McpServerNotRunningException.class).isThrownBy(() -> whoami(server, "s2"));
			server.startServer();
			assertThat(whoami(server, "s3")).contains("gho_carol");
		});
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Tokens {

		@Bean
		InMemoryClientRegistrationRepository clientRegistrations() {
			return new InMemoryClientRegistrationRepository(OAuth2Clients.registration());
		}

		@Bean
		OAuth2AuthorizedClientService authorizedClients(InMemoryClientRegistrationRepository registrations) {
			InMemoryOAuth2AuthorizedClientService service = new InMemoryOAuth2AuthorizedClientService(registrations);
			OAuth2Clients.authorize(service, "alice", ALICE_TOKEN);
			OAuth2Clients.authorize(service, "bob", BOB_TOKEN);
			OAuth2Clients.authorize(service, "carol", "gho_carol_00001111");
			OAuth2Clients.authorize(service, "dave", "gho_dave_22223333");
			OAuth2Clients.authorize(service, "erin", "gho_erin_44445555");
			return service;
		}

	}

}

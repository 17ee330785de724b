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

package dev.mcpstdio.ai;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.mcpstdio.McpServerNotRunningException;
import dev.mcpstdio.actuate.McpServersEndpoint;
import dev.mcpstdio.actuate.McpStdioMetrics;
import dev.mcpstdio.autoconfigure.McpStdioUsers;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.test.OAuth2Clients;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.execution.ToolExecutionException;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.context.SecurityContextImpl;
import org.springframework.security.oauth2.client.AuthorizedClientServiceOAuth2AuthorizedClientManager;
import org.springframework.security.oauth2.client.InMemoryOAuth2AuthorizedClientService;
import org.springframework.security.oauth2.client.OAuth2AuthorizedClientManager;
import org.springframework.security.oauth2.client.OAuth2AuthorizedClientProviderBuilder;
import org.springframework.security.oauth2.client.OAuth2AuthorizedClientService;
import org.springframework.security.oauth2.client.registration.InMemoryClientRegistrationRepository;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Per-user servers as a multi-tenant application uses them, through Spring AI's real
 * client and Spring Security's in-memory OAuth2 authorized client service: many users
 * over time, {@code max-instances} reached, users who cannot have an instance.
 *
 * @author mcp-stdio authors
 */
@ExtendWith({ NoProcessLeft.class, OutputCaptureExtension.class })
class PerUserChurnTests {

	/** The users who authorized the OAuth2 client: u0 to u59. */
	static final int USERS = 60;

	private final Fixtures fixtures;

	PerUserChurnTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@AfterEach
	void noUser() {
		SecurityContextHolder.clearContext();
	}

	private ApplicationContextRunner runner(String... extra) {
		List<String> properties = new ArrayList<>(server("gh", null));
		properties.add("spring.ai.mcp.client.toolcallback.enabled=true");
		properties.addAll(List.of(extra));
		return AiTestSupport.runner()
			.withUserConfiguration(Tokens.class)
			.withPropertyValues(properties.toArray(String[]::new));
	}

	private List<String> server(String name, @Nullable String toolName) {
		String prefix = "mcp.stdio.servers." + name + ".";
		List<String> properties = new ArrayList<>(
				List.of(prefix + "command=sh", prefix + "args[0]=" + Fixtures.script("per-user-mcp.sh"),
						prefix + "env." + Fixtures.MARKER + "=" + this.fixtures.id(), prefix + "instances=per-user",
						prefix + "user-env.USER_TOKEN=oauth2:github", prefix + "shutdown.drain-timeout=300ms",
						prefix + "shutdown.stdin-close-timeout=500ms", prefix + "shutdown.terminate-timeout=500ms"));
		if (toolName != null) {
			properties.add(prefix + "env.TOOL_NAME=" + toolName);
		}
		return properties;
	}

	static void signIn(String user) {
		SecurityContextHolder.setContext(new SecurityContextImpl(
				new TestingAuthenticationToken(user, null, AuthorityUtils.createAuthorityList("USER"))));
	}

	static String token(String user) {
		return "gho_" + user + "_0123456789abcdef";
	}

	/** Call a tool of the callbacks gathered on this thread, as a chat would. */
	static String call(ToolCallbackProvider provider, String tool) {
		return call(provider, tool, "{}");
	}

	static String call(ToolCallbackProvider provider, String tool, String input) {
		ToolCallback callback = Arrays.stream(provider.getToolCallbacks())
			.filter((candidate) -> candidate.getToolDefinition().name().equals(tool))
			.findFirst()
			.orElseThrow(() -> new AssertionError("no tool callback named " + tool));
		return callback.call(input);
	}

	@Test
	void anInstanceStoppedToMakeRoomLeavesNothingReachable() {
		// what a timer holds until it is due (the idle check, the send-timeout check) is
		// let go when the instance is: both set far beyond the bound of the wait below
		runner("mcp.stdio.servers.gh.max-instances=2", "mcp.stdio.servers.gh.send-timeout=5m").run((context) -> {
			McpStdioServer gh = context.getBean(McpStdioServers.class).get("gh");
			ToolCallbackProvider provider = context.getBean("mcpToolCallbacks", ToolCallbackProvider.class);
			List<WeakReference<Object>> gone = new ArrayList<>();
			int users = 12;
			for (int i = 0; i < users; i++) {
				signIn("u" + i);
				assertThat(call(provider, "who")).contains("user gho_u" + i + " ");
				if (i < users - 2) {
					// stopped to make room by a later user's call
					McpStdioServer instance = gh.instance();
					gone.add(new WeakReference<>(instance));
					gone.add(new WeakReference<>(instance.process()));
					gone.add(new WeakReference<>(instance.clientConnection()));
				}
			}
			SecurityContextHolder.clearContext();
			assertThat(gh.instances()).hasSize(2);
			// bounded: the evicted instances stop in the background
			Await.within(Duration.ofSeconds(20))
				.every(Duration.ofMillis(200))
				.until("the instances stopped to make room unreachable", () -> {
					System.gc();
					return gone.stream().allMatch((reference) -> reference.get() == null);
				});
		});
	}

	@Test
	void anInstanceStoppedForBeingIdleIsGoneFromTheEndpointTheGaugesAndTheHeap() {
		runner("mcp.stdio.servers.gh.idle-timeout=1s", "mcp.stdio.servers.gh.send-timeout=5m").run((context) -> {
			McpStdioServers servers = context.getBean(McpStdioServers.class);
			McpStdioServer gh = servers.get("gh");
			ToolCallbackProvider provider = context.getBean("mcpToolCallbacks", ToolCallbackProvider.class);
			SimpleMeterRegistry registry = new SimpleMeterRegistry();
			new McpStdioMetrics(servers).bindTo(registry);
			// a per-user server is up while it can start instances
			assertThat(registry.get("mcp.stdio.server.up").tag("server", "gh").gauge().value()).isEqualTo(1);
			List<WeakReference<Object>> gone = new ArrayList<>();
			for (String user : List.of("u1", "u2")) {
				signIn(user);
				assertThat(call(provider, "who")).contains("user gho_" + user + " ");
				McpStdioServer instance = gh.instance();
				gone.add(new WeakReference<>(instance));
				gone.add(new WeakReference<>(instance.process()));
			}
			SecurityContextHolder.clearContext();
			// what the endpoint, the gauges and each instance's state say agree at every
			// look, while the instances run and after their idle stop
			long end = System.nanoTime() + Duration.ofSeconds(6).toNanos();
			int looks = 0;
			while (System.nanoTime() < end) {
				Map<String, McpStdioServer> instances = gh.instances();
				Map<?, ?> json = JsonMapper.shared()
					.convertValue(new McpServersEndpoint(servers, Show.ALWAYS).servers(), Map.class);
				Map<?, ?> shown = (Map<?, ?>) ((Map<?, ?>) json.get("servers")).get("gh");
				double gauge = registry.get("mcp.stdio.instances").tag("server", "gh").gauge().value();
				if (instances.equals(gh.instances())) {
					// no instance came or went during the look
					assertThat(((Number) shown.get("instances")).intValue()).isEqualTo(instances.size());
					assertThat(gauge).isEqualTo(instances.size());
					assertThat(((Map<?, ?>) shown.get("users")).values()).allMatch(
							(instance) -> !List.of("STOPPED", "FAILED").contains(((Map<?, ?>) instance).get("state")));
				}
				assertThat(registry.get("mcp.stdio.server.up").tag("server", "gh").gauge().value()).isEqualTo(1);
				looks++;
				Thread.sleep(20);
			}
			assertThat(looks).isGreaterThan(10);
			Await.that("both instances stopped for being idle", () -> gh.instances().isEmpty());
			assertThat(registry.get("mcp.stdio.instances").tag("server", "gh").gauge().value()).isZero();
			Await.within(Duration.ofSeconds(20))
				.every(Duration.ofMillis(200))
				.until("the idle instances unreachable", () -> {
					System.gc();
					return gone.stream().allMatch((reference) -> reference.get() == null);
				});
		});
	}

	@Test
	void underChurnEveryCallIsAnsweredByItsUsersInstanceOrRefusedNamingMaxInstances() {
		runner("mcp.stdio.servers.gh.max-instances=5", "mcp.stdio.servers.gh.instance-wait=2s").run((context) -> {
			McpStdioServer gh = context.getBean(McpStdioServers.class).get("gh");
			ToolCallbackProvider provider = context.getBean("mcpToolCallbacks", ToolCallbackProvider.class);
			int threads = 16;
			int callsEach = 125;
			AtomicInteger answered = new AtomicInteger();
			AtomicInteger refused = new AtomicInteger();
			AtomicLong slowest = new AtomicLong();
			Map<String, AtomicInteger> others = new ConcurrentHashMap<>();
			ExecutorService pool = Executors.newFixedThreadPool(threads);
			try {
				List<Future<?>> done = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					int thread = t;
					done.add(pool.submit(() -> {
						for (int i = 0; i < callsEach; i++) {
							String user = "u" + ((thread * 7 + i) % 12);
							signIn(user);
							long start = System.nanoTime();
							try {
								String answer = call(provider, "who");
								if (answer.contains("user gho_" + user + " ")) {
									answered.incrementAndGet();
								}
								else {
									others.computeIfAbsent("another user's answer", (key) -> new AtomicInteger())
										.incrementAndGet();
								}
							}
							catch (ToolExecutionException ex) {
								if (String.valueOf(ex.getMessage()).contains("max-instances 5")
										&& ex.getMessage().contains("instance-wait (2s)")) {
									refused.incrementAndGet();
								}
								else {
									others
										.computeIfAbsent(String.valueOf(ex.getMessage()), (key) -> new AtomicInteger())
										.incrementAndGet();
								}
							}
							catch (RuntimeException | AssertionError ex) {
								others.computeIfAbsent(String.valueOf(ex), (key) -> new AtomicInteger())
									.incrementAndGet();
							}
							finally {
								SecurityContextHolder.clearContext();
							}
							slowest.accumulateAndGet(System.nanoTime() - start, Math::max);
						}
						return null;
					}));
				}
				for (Future<?> future : done) {
					future.get(10, TimeUnit.MINUTES);
				}
			}
			finally {
				pool.shutdownNow();
			}
			assertThat(others).as("failures other than the refusal").isEmpty();
			assertThat(answered.get() + refused.get()).isEqualTo(threads * callsEach);
			assertThat(answered.get()).isGreaterThan(threads * callsEach / 2);
			// no call waits longer than instance-wait plus its own time: a generous
			// bound,
			// below Spring AI's 20 s request timeout plus the wait
			assertThat(Duration.ofNanos(slowest.get())).isLessThan(Duration.ofSeconds(17));
			assertThat(gh.instances().size()).isLessThanOrEqualTo(5);
		});
	}

	@Test
	void aClientClosedWithItsInstanceBeforeItsSessionExistsFailsTheCallAsNotRunning() {
		runner("mcp.stdio.servers.gh.env.INIT_DELAY=2").run((context) -> {
			McpStdioServer gh = context.getBean(McpStdioServers.class).get("gh");
			ToolCallbackProvider provider = context.getBean("mcpToolCallbacks", ToolCallbackProvider.class);
			signIn("u1");
			assertThat(call(provider, "who")).contains("user gho_u1 ");
			// u2's first call: their instance's client initializes (2 s) when the server
			// is stopped by an operator, which closes the instance and its client
			signIn("u2");
			ToolCallback who = Arrays.stream(provider.getToolCallbacks())
				.filter((callback) -> callback.getToolDefinition().name().equals("who"))
				.findFirst()
				.orElseThrow();
			SecurityContextHolder.clearContext();
			CompletableFuture<String> call = CompletableFuture.supplyAsync(() -> who.call("{}"));
			Await.that("u2's instance starting", () -> gh.instances().size() == 2
					&& gh.instances().values().stream().allMatch((instance) -> instance.pid() != null));
			gh.stopServer();
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> call.get(30, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOf(ToolExecutionException.class)
				.havingCause()
				.isInstanceOf(McpServerNotRunningException.class)
				.withMessageContaining("MCP server 'gh'");
		});
	}

	@Test
	void aUserWhoCannotHaveAnInstanceIsToldWhyByTheCallAndTheOtherServersAnswer(CapturedOutput output) {
		List<String> vault = server("vault", "vault_who");
		vault.set(vault.indexOf("mcp.stdio.servers.vault.user-env.USER_TOKEN=oauth2:github"),
				"mcp.stdio.servers.vault.user-env.USER_TOKEN=vault:token");
		List<String> shared = AiTestSupport.testServer("plain", this.fixtures.id());
		runner().withUserConfiguration(VaultUsers.class)
			.withPropertyValues(vault.toArray(String[]::new))
			.withPropertyValues(shared.toArray(String[]::new))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ToolCallbackProvider provider = context.getBean("mcpToolCallbacks", ToolCallbackProvider.class);
				// a first user: each per-user server lists its tools
				signIn("u1");
				assertThat(call(provider, "who")).contains("user gho_u1 ");
				assertThat(call(provider, "vault_who")).contains("user vault_u1 ");
				// no authenticated user: the tools stay offered, a call says why at once
				SecurityContextHolder.setContext(new SecurityContextImpl(new AnonymousAuthenticationToken("key",
						"anonymousUser", AuthorityUtils.createAuthorityList("ROLE_ANONYMOUS"))));
				assertRefused(provider, "who", "MCP server 'gh' runs one instance per user", "no authenticated user");
				assertThat(call(provider, "echo", "{\"text\":\"anonymous\"}")).contains("anonymous");
				// signed in otherwise than with oauth2Login: no authorized client (the
				// manager throws ClientAuthorizationRequiredException)
				signIn("basic-user");
				assertRefused(provider, "who", "MCP server 'gh' cannot start an instance for the calling user",
						"user-env USER_TOKEN (oauth2:github) has no value for them (they have not authorized");
				assertThat(call(provider, "echo", "{\"text\":\"basic\"}")).contains("basic");
				// the source of the vault server's values fails for this user: that
				// server
				// alone refuses, and says so
				signIn("u13");
				assertRefused(provider, "vault_who", "MCP server 'vault' cannot start an instance",
						"could not be resolved");
				assertThat(call(provider, "who")).contains("user gho_u13 ");
				assertThat(call(provider, "echo", "{\"text\":\"u13\"}")).contains("u13");
				// a value the OS cannot take: refused naming the variable, never its
				// value
				signIn("u14");
				assertRefused(provider, "vault_who", "MCP server 'vault'", "USER_TOKEN");
				assertThat(call(provider, "who")).contains("user gho_u14 ");
			});
		assertThat(output.getAll()).doesNotContain(VaultUsers.VAULT_SECRET, VaultUsers.NUL_SECRET);
	}

	private static void assertRefused(ToolCallbackProvider provider, String tool, String... reasons) {
		Instant start = Instant.now();
		assertThatExceptionOfType(ToolExecutionException.class).isThrownBy(() -> call(provider, tool))
			.satisfies((ex) -> assertThat(ex.getMessage()).contains(reasons)
				.doesNotContain(VaultUsers.VAULT_SECRET, VaultUsers.NUL_SECRET));
		// at once: a generous bound for a loaded machine
		assertThat(Duration.between(start, Instant.now())).isLessThan(Duration.ofSeconds(10));
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
			for (int i = 0; i < USERS; i++) {
				OAuth2Clients.authorize(service, "u" + i, token("u" + i));
			}
			return service;
		}

		// as an application with oauth2Login has one: for a user who has not authorized
		// the client it throws ClientAuthorizationRequiredException
		@Bean
		OAuth2AuthorizedClientManager authorizedClientManager(InMemoryClientRegistrationRepository registrations,
				OAuth2AuthorizedClientService service) {
			AuthorizedClientServiceOAuth2AuthorizedClientManager manager = new AuthorizedClientServiceOAuth2AuthorizedClientManager(
					registrations, service);
			manager.setAuthorizedClientProvider(
					OAuth2AuthorizedClientProviderBuilder.builder().authorizationCode().refreshToken().build());
			return manager;
		}

	}

	/**
	 * Values of a vault: down for u13 (its message quotes a secret), a value with a NUL
	 * character for u14.
	 */
	@Configuration(proxyBeanMethods = false)
	static class VaultUsers {

		static final String VAULT_SECRET = "s3cr3t-vault-session-4711";

		static final String NUL_SECRET = "vault_u14_nul_0123456789";

		@Bean
		McpStdioUsers vaultUsers() {
			McpStdioUsers keys = McpStdioUsers.keyedHash();
			return new McpStdioUsers() {

				@Override
				public String key(Authentication user) {
					return keys.key(user);
				}

				@Override
				public String value(String server, String reference, Authentication user) {
					if (user.getName().equals("u13")) {
						throw new IllegalStateException("vault unreachable (session " + VAULT_SECRET + ")");
					}
					if (user.getName().equals("u14")) {
						return NUL_SECRET + "\u0000x";
					}
					return "vault_" + user.getName() + "_0123456789";
				}

			};
		}

	}

}

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

import ch.qos.logback.classic.Level;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.LogCapture;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link McpStdioOrphanGuardAutoConfiguration}.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class McpStdioOrphanGuardAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(McpStdioOrphanGuardAutoConfiguration.class, McpStdioAutoConfiguration.class));

	private final Fixtures fixtures;

	McpStdioOrphanGuardAutoConfigurationTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void startUpSweepsLeftoversOfDeadOwnersOfTheApplication() throws Exception {
		long ours = this.fixtures.leftover("TERM", this.fixtures.id());
		long another = this.fixtures.leftover("HUP", this.fixtures.id() + "-another");
		this.runner
			.withPropertyValues("spring.application.name=" + this.fixtures.id(),
					"mcp.stdio.defaults.shutdown.terminate-timeout=300ms")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(ServerHost.class).application()).isEqualTo(this.fixtures.id());
				assertThat(this.fixtures.alive()).doesNotContain(ours).contains(another);
			});
		ProcessHandle.of(another).ifPresent(ProcessHandle::destroyForcibly);
		this.fixtures.assertNoneAlive(Duration.ofSeconds(2));
	}

	@Test
	void startUpSweepWaitsForTheLongestTerminateTimeoutOfTheServers() throws Exception {
		// a leftover of a server whose terminate-timeout is longer than the defaults'
		// gets
		// its server's time after SIGTERM, not the defaults'
		long slow = this.fixtures.slowLeftover(this.fixtures.id());
		try (LogCapture log = LogCapture.of("dev.mcpstdio.core.containment")) {
			this.runner
				.withPropertyValues("spring.application.name=" + this.fixtures.id(),
						"mcp.stdio.defaults.shutdown.terminate-timeout=300ms", "mcp.stdio.servers.slow.command=sh",
						"mcp.stdio.servers.slow.enabled=false", "mcp.stdio.servers.slow.shutdown.terminate-timeout=20s")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					assertThat(this.fixtures.alive()).doesNotContain(slow);
				});
			assertThat(log.messages(Level.WARN)).anySatisfy(
					(line) -> assertThat(line).contains("orphaned MCP server process").contains(" 0 needed SIGKILL"));
		}
		this.fixtures.assertNoneAlive(Duration.ofSeconds(2));
	}

	@Test
	void sweepScopeUserSweepsEveryApplicationsLeftovers() throws Exception {
		long another = this.fixtures.leftover("HUP", this.fixtures.id() + "-another");
		this.runner
			.withPropertyValues("spring.application.name=" + this.fixtures.id(),
					"mcp.stdio.orphan-guard.sweep-scope=user")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(this.fixtures.alive()).doesNotContain(another);
			});
		this.fixtures.assertNoneAlive(Duration.ofSeconds(2));
	}

	@Test
	void anApplicationsOwnHostIsSweptToo() throws Exception {
		long ours = this.fixtures.leftover("HUP", this.fixtures.id());
		this.runner.withBean(ServerHost.class, () -> ServerHost.builder().application(this.fixtures.id()).build())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(this.fixtures.alive()).doesNotContain(ours);
			});
		this.fixtures.assertNoneAlive(Duration.ofSeconds(2));
	}

	@Test
	void disabledGuardNeitherSweepsNorGuards() throws Exception {
		long leftover = this.fixtures.leftover("HUP", this.fixtures.id());
		this.runner
			.withPropertyValues("spring.application.name=" + this.fixtures.id(), "mcp.stdio.orphan-guard.enabled=false")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(ServerHost.class).orphanGuard().isEnabled()).isFalse();
				assertThat(this.fixtures.alive()).contains(leftover);
			});
		ProcessHandle.of(leftover).ifPresent(ProcessHandle::destroyForcibly);
		this.fixtures.assertNoneAlive(Duration.ofSeconds(2));
	}

	@Test
	void nothingWhenMcpStdioIsDisabled() {
		this.runner.withPropertyValues("mcp.stdio.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("mcpStdioStartupSweep"));
	}

}

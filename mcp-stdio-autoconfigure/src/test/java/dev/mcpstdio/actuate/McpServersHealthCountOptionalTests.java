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

package dev.mcpstdio.actuate;

import dev.mcpstdio.autoconfigure.McpStdioAutoConfiguration;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.autoconfigure.actuate.McpServersHealthContributorAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code management.health.mcpservers.count-optional}: by default a stopped optional
 * server leaves the {@code mcpServers} contributor {@code UP}; with the setting it counts
 * like a required one.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class McpServersHealthCountOptionalTests {

	private final Fixtures fixtures;

	private final ApplicationContextRunner runner;

	McpServersHealthCountOptionalTests(Fixtures fixtures) {
		this.fixtures = fixtures;
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(McpStdioAutoConfiguration.class,
					McpServersHealthContributorAutoConfiguration.class))
			.withPropertyValues("mcp.stdio.servers.optional.command=sh",
					"mcp.stdio.servers.optional.args[0]=" + Fixtures.script("echo.sh"),
					"mcp.stdio.servers.optional.env." + Fixtures.MARKER + "=" + fixtures.id());
	}

	@Test
	void aStoppedOptionalServerDoesNotCountByDefault() {
		this.runner.run((context) -> {
			Health health = stopAndCheck(context.getBean(McpStdioServers.class).get("optional"),
					context.getBean("mcpServersHealthIndicator", HealthIndicator.class));
			assertThat(health.getStatus()).isEqualTo(Status.UP);
		});
	}

	@Test
	void aStoppedOptionalServerCountsWithTheSetting() {
		this.runner.withPropertyValues("management.health.mcpservers.count-optional=true").run((context) -> {
			Health health = stopAndCheck(context.getBean(McpStdioServers.class).get("optional"),
					context.getBean("mcpServersHealthIndicator", HealthIndicator.class));
			assertThat(health.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
		});
	}

	private static Health stopAndCheck(McpStdioServer server, HealthIndicator indicator) {
		assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
		server.stopServer();
		Health health = indicator.health();
		assertThat(health.getDetails()).containsEntry("optional", "STOPPED");
		return health;
	}

}

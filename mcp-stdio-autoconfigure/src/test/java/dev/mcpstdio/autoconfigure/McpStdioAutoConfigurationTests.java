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

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import dev.mcpstdio.autoconfigure.config.ConfiguredServers;
import dev.mcpstdio.autoconfigure.config.McpStdioProperties;
import dev.mcpstdio.autoconfigure.reload.ServerReloads;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.ConfigurationPropertiesAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link McpStdioAutoConfiguration}.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class McpStdioAutoConfigurationTests {

	private final Fixtures fixtures;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(McpStdioAutoConfiguration.class));

	McpStdioAutoConfigurationTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void serverStartsInitializedAndStopsWithTheContext() {
		this.runner
			.withPropertyValues("mcp.stdio.servers.echo.command=sh",
					"mcp.stdio.servers.echo.args=" + Fixtures.script("echo.sh"),
					"mcp.stdio.servers.echo.env." + Fixtures.MARKER + "=" + this.fixtures.id())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				McpStdioServer server = context.getBean(McpStdioServers.class).get("echo");
				assertThat(context.getBean("mcpStdioServer.echo")).isSameAs(server);
				assertThat(server.state()).isEqualTo(ServerState.RUNNING);
				assertThat(server.isInitialized()).isTrue();
				assertThat(this.fixtures.alive()).contains(server.pid());
			});
	}

	@Test
	void theConfigurationIsBoundOnceForTheServersTheHostAndTheOrphanGuard() {
		// with Boot's binding of configuration properties beans, as in an application
		this.runner
			.withConfiguration(AutoConfigurations.of(McpStdioOrphanGuardAutoConfiguration.class,
					ConfigurationPropertiesAutoConfiguration.class))
			.withPropertyValues("mcp.stdio.servers.echo.command=sh",
					"mcp.stdio.servers.echo.args=" + Fixtures.script("echo.sh"),
					"mcp.stdio.servers.echo.env." + Fixtures.MARKER + "=" + this.fixtures.id(),
					"mcp.stdio.orphan-guard.enabled=false", "mcp.stdio.defaults.startup-timeout=20s")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(ConfiguredServers.class);
				ConfiguredServers configured = context.getBean(ConfiguredServers.class);
				assertThat(configured.properties().getOrphanGuard().isEnabled()).isFalse();
				assertThat(context.getBean(ServerHost.class).orphanGuard().isEnabled()).isFalse();
				// the server bean's definition is the one resolved, over defaults
				assertThat(context.getBean(McpStdioServers.class).get("echo").definition())
					.isSameAs(configured.definitions().get(0));
				assertThat(configured.properties().getServers().get("echo").getStartupTimeout())
					.isEqualTo(Duration.ofSeconds(20));
				// the properties are a bean: the instance that reading bound, never bound
				// again by Boot (which would give the server no defaults)
				assertThat(context).hasSingleBean(McpStdioProperties.class);
				McpStdioProperties properties = context.getBean(McpStdioProperties.class);
				assertThat(properties).isSameAs(configured.properties());
				assertThat(properties.getServers().get("echo").getStartupTimeout()).isEqualTo(Duration.ofSeconds(20));
			});
	}

	@Test
	void theHostIsClosedOnlyAfterEveryServerIncludingOneAReloadAdded() throws Exception {
		Path file = Files.createTempFile("mcp-servers", ".json");
		try {
			Files.writeString(file, "{\"mcpServers\": {}}");
			this.runner
				.withPropertyValues("mcp.stdio.servers.echo.command=sh",
						"mcp.stdio.servers.echo.args=" + Fixtures.script("echo.sh"),
						"mcp.stdio.servers.echo.env." + Fixtures.MARKER + "=" + this.fixtures.id(),
						"mcp.stdio.servers-configuration=" + file, "mcp.stdio.reload.enabled=false")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					Files.writeString(file,
							"{\"mcpServers\": {\"added\": {\"command\": \"sh\", \"args\": [\""
									+ Fixtures.script("echo.sh") + "\"], \"env\": {\"" + Fixtures.MARKER + "\": \""
									+ this.fixtures.id() + "\"}}}}");
					context.getBean(ServerReloads.class).reload("the test");
					assertThat(context.getBean(McpStdioServers.class).find("added")).isNotNull();
					// the context destroys a bean's dependents first
					assertThat(context.getBeanFactory().getDependentBeans("mcpStdioServerHost"))
						.contains("mcpStdioServer.echo", "mcpStdioServer.added");
				});
		}
		finally {
			Files.deleteIfExists(file);
		}
	}

}

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

package dev.mcpstdio.autoconfigure.config;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.mcpstdio.autoconfigure.config.McpStdioProperties.ServerSettings;
import dev.mcpstdio.core.containment.ContainerSettings;
import dev.mcpstdio.core.server.ShutdownTimeouts;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.lifecycle.McpStdioServerDefinition;
import dev.mcpstdio.lifecycle.RestartPolicy;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;

import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ServerDefinitions}: a server that sets nothing gets, value by value,
 * the default on each property's field, and nothing from anywhere else.
 *
 * @author mcp-stdio authors
 */
class ServerDefinitionsTests {

	@Test
	void aServerThatSetsNothingGetsTheDefaultOfEachPropertysField() {
		ServerSettings fields = new ServerSettings();
		McpStdioServerDefinition shared = read().get("shared");
		StdioServerSpec spec = shared.spec();
		assertThat(spec.inheritEnv()).isEqualTo(fields.isInheritEnv());
		assertThat(spec.workingDirectory()).isNull();
		assertThat((long) spec.maxMessageSize()).isEqualTo(fields.getMaxMessageSize().toBytes());
		assertThat(spec.stderrTailLines()).isEqualTo(fields.getStderrTailLines());
		assertThat(spec.sendTimeout()).isEqualTo(fields.getSendTimeout());
		assertThat(spec.startupTimeout()).isEqualTo(fields.getStartupTimeout());
		assertThat(spec.shutdown()).isEqualTo(new ShutdownTimeouts(fields.getShutdown().getDrainTimeout(),
				fields.getShutdown().getStdinCloseTimeout(), fields.getShutdown().getTerminateTimeout()));
		assertThat(spec.container()).isEqualTo(
				new ContainerSettings(fields.getContainer().isEnabled(), fields.getContainer().getEngineCommand(),
						fields.getContainer().isInit(), fields.getContainer().getEngineTimeout()));
		assertThat(spec.sandbox().enabled()).isEqualTo(fields.getSandbox().isEnabled());
		assertThat(spec.sandbox().network()).isEqualTo(fields.getSandbox().getNetwork());
		assertThat(spec.sandbox().readWrite()).isEqualTo(fields.getSandbox().getReadWrite());
		assertThat(spec.sandbox().readOnly()).isEqualTo(fields.getSandbox().getReadOnly());
		assertThat(shared.enabled()).isEqualTo(fields.isEnabled());
		assertThat(shared.required()).isEqualTo(fields.isRequired());
		McpStdioProperties.Restart restart = fields.getRestart();
		assertThat(shared.restart()).isEqualTo(new RestartPolicy(restart.getPolicy(), restart.getMaxRestarts(),
				restart.getWindow(), restart.getInitialBackoff(), restart.getMaxBackoff()));
		assertThat(shared.demand().start()).isEqualTo(fields.getStart());
		assertThat(shared.demand().idleTimeout()).isEqualTo(fields.getIdleTimeout()).isNull();
		assertThat(shared.demand().perUser()).isNull();
		assertThat(shared.limits().checkInterval()).isEqualTo(new McpStdioProperties().getResourceCheckInterval());
		// the same spec as the one tests build outside the configuration
		assertThat(spec.toBuilder().origin(StdioServerSpec.Origin.of("x")).build())
			.isEqualTo(SpecDefaults.builder("shared", "sh").origin(StdioServerSpec.Origin.of("x")).build());
	}

	@Test
	void aPerUserServerThatSetsNoIdleTimeoutGetsThePerUserDefault() {
		ServerSettings fields = new ServerSettings();
		McpStdioServerDefinition perUser = read().get("per-user");
		assertThat(perUser.demand().idleTimeout()).isEqualTo(ServerSettings.PER_USER_IDLE_TIMEOUT);
		assertThat(perUser.demand().perUser().maxInstances()).isEqualTo(fields.getMaxInstances());
		assertThat(perUser.demand().perUser().instanceWait()).isEqualTo(fields.getInstanceWait());
	}

	private static Map<String, McpStdioServerDefinition> read() {
		MockEnvironment environment = new MockEnvironment().withProperty("mcp.stdio.servers.shared.command", "sh")
			.withProperty("mcp.stdio.servers.per-user.command", "sh")
			.withProperty("mcp.stdio.servers.per-user.instances", "per-user");
		ConfiguredServers configured = ConfiguredServers.read(environment, new DefaultResourceLoader(),
				ServerDefinitionsTests.class.getClassLoader(), LogFactory.getLog(ServerDefinitionsTests.class));
		Map<String, McpStdioServerDefinition> definitions = new LinkedHashMap<>();
		configured.definitions().forEach((definition) -> definitions.put(definition.name(), definition));
		assertThat(definitions).containsOnlyKeys("shared", "per-user");
		return definitions;
	}

}

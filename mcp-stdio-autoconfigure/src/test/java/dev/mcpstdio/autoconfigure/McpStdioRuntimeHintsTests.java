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

import java.util.List;

import dev.mcpstdio.autoconfigure.config.Connection;
import dev.mcpstdio.autoconfigure.config.McpStdioProperties;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the runtime hints of mcp-stdio, as registered through
 * {@code META-INF/spring/aot.factories}: what it reads by reflection (the binding of its
 * properties and of Spring AI's stdio connections, the endpoint's JSON, a tool's answer),
 * its scripts, and JNA's proxy.
 *
 * @author mcp-stdio authors
 */
class McpStdioRuntimeHintsTests {

	private final RuntimeHints hints = registered();

	@Test
	void registrarsAreListedInAotFactories() {
		List<String> names = SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class)
			.stream()
			.map((registrar) -> registrar.getClass().getName())
			.toList();
		assertThat(names).contains(McpStdioRuntimeHints.class.getName(),
				"dev.mcpstdio.actuate.McpServersEndpointRuntimeHints", "dev.mcpstdio.ai.McpStdioAiRuntimeHints");
	}

	@Test
	void scriptsOfTheOrphanGuardAndTheReapersAreResources() {
		for (String script : List.of("orphan-guard.sh", "reap-cgroup.sh", "reap-containers.sh")) {
			String resource = "dev/mcpstdio/core/containment/" + script;
			assertThat(getClass().getClassLoader().getResource(resource)).as(resource).isNotNull();
			assertThat(RuntimeHintsPredicates.resource().forResource(resource)).as(resource).accepts(this.hints);
		}
	}

	@Test
	void propertiesAndSpringAiConnectionsCanBeBound() throws Exception {
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(McpStdioProperties.class, "getServers"))
			.accepts(this.hints);
		assertThat(
				RuntimeHintsPredicates.reflection().onMethodInvocation(McpStdioProperties.Server.class, "setCommand"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(McpStdioProperties.Shutdown.class, "setTerminateTimeout")).accepts(this.hints);
		assertThat(
				RuntimeHintsPredicates.reflection().onMethodInvocation(McpStdioProperties.Sandbox.class, "setEnabled"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onConstructorInvocation(Connection.class.getDeclaredConstructors()[0])).accepts(this.hints);
	}

	@Test
	void theEndpointsJsonAndAToolsAnswerCanBeWrittenAndRead() throws Exception {
		for (String accessor : List.of("McpServersDescriptor:servers", "McpServerDescriptor:state",
				"ProcessDescriptor:pid", "InstancesDescriptor:users", "SandboxDescriptor:readOnly",
				"LastExitDescriptor:stderrTail", "ReloadDescriptor:problem", "ActionFailure:message")) {
			String[] type = accessor.split(":");
			assertThat(RuntimeHintsPredicates.reflection()
				.onMethodInvocation("dev.mcpstdio.actuate.McpServersEndpoint$" + type[0], type[1])).as(accessor)
				.accepts(this.hints);
		}
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation("dev.mcpstdio.ai.McpStdioClientTransport$ToolAnswer", "result")).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(TypeReference.of("io.modelcontextprotocol.spec.McpSchema$CallToolResult"))).accepts(this.hints);
	}

	@Test
	void theCLibraryCanBeReachedThroughJna() throws Exception {
		Class<?> libc = Class.forName(McpStdioRuntimeHints.LIBC);
		assertThat(libc.isInterface()).isTrue();
		assertThat(RuntimeHintsPredicates.proxies().forInterfaces(libc)).accepts(this.hints);
	}

	private static RuntimeHints registered() {
		RuntimeHints hints = new RuntimeHints();
		SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class)
			.forEach((registrar) -> registrar.registerHints(hints, McpStdioRuntimeHintsTests.class.getClassLoader()));
		return hints;
	}

}

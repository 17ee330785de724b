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
import java.util.List;
import java.util.Map;

import dev.mcpstdio.autoconfigure.config.McpStdioProperties.Server;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.OriginTrackedMapPropertySource;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ScopedBinders}: each server bound from its own names binds as Boot's
 * map binding does, across sources and relaxed names.
 *
 * @author mcp-stdio authors
 */
class ScopedBindersTests {

	private static final ConfigurationPropertyName SERVERS = ConfigurationPropertyName.of("mcp.stdio.servers");

	@Test
	void bindsEachServerAsBootsMapBindingDoes() {
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources().remove(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
		environment.getPropertySources().remove(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
		// highest first: a mutable map (as a test's properties), a file's immutable
		// source, the process environment
		environment.getPropertySources()
			.addLast(new MapPropertySource("mutable",
					Map.of("mcp.stdio.servers.a.args[0]", "over", "mcp.stdio.servers.b.startupTimeout", "7s",
							"mcp.stdio.servers.placeholder.command", "${the.command}", "the.command",
							"from-a-placeholder")));
		Map<String, Object> file = new LinkedHashMap<>();
		file.put("mcp.stdio.servers.a.command", "node");
		file.put("mcp.stdio.servers.a.args[0]", "first");
		file.put("mcp.stdio.servers.a.args[1]", "second");
		file.put("mcp.stdio.servers.a.env.API_TOKEN", "t0ken");
		file.put("mcp.stdio.servers.a.restart.policy", "always");
		file.put("mcp.stdio.servers.b.command", "uvx");
		file.put("mcp.stdio.servers.b.sandbox.read-write[0]", "/tmp");
		file.put("mcp.stdio.servers[dotted.name].command", "java");
		file.put("mcp.stdio.servers.ab.command", "npx");
		file.put("mcp.stdio.defaults.start", "lazy");
		environment.getPropertySources().addLast(new OriginTrackedMapPropertySource("file", file, true));
		environment.getPropertySources()
			.addLast(new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
					Map.of("MCP_STDIO_SERVERS_B_ARGS_0", "from-env", "MCP_STDIO_SERVERS_C_COMMAND", "docker",
							"MCP_STDIO_SERVERS_C_SENDTIMEOUT", "3s")));
		ConfigurationPropertySources.attach(environment);

		Map<String, Server> boots = Binder.get(environment)
			.bind(SERVERS, Bindable.mapOf(String.class, Server.class))
			.get();
		ScopedBinders scoped = new ScopedBinders(environment, SERVERS);
		Map<String, Server> ours = new LinkedHashMap<>();
		scoped.entries.forEach((key, entry) -> scoped.binder(entry)
			.bind(entry, Bindable.of(Server.class))
			.ifBound((server) -> ours.put(key, server)));

		assertThat(ours.keySet()).containsExactlyElementsOf(boots.keySet())
			.containsExactlyInAnyOrder("a", "b", "c", "ab", "dotted.name", "placeholder");
		boots.forEach((name, server) -> assertThat(facts(ours.get(name))).as(name).isEqualTo(facts(server)));
		// a list comes whole from the highest source that has it
		assertThat(ours.get("a").getArgs()).containsExactly("over");
		assertThat(ours.get("placeholder").getCommand()).isEqualTo("from-a-placeholder");
		assertThat(ours.get("c").getSendTimeout()).hasSeconds(3);
	}

	private static List<Object> facts(Server server) {
		return List.of(String.valueOf(server.getCommand()), server.getArgs(), server.getEnv(),
				server.getStartupTimeout(), server.getSendTimeout(), server.getRestart().getPolicy(),
				server.getSandbox().getReadWrite(), server.getStart());
	}

}

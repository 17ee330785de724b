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

import java.util.LinkedHashMap;
import java.util.Map;

import dev.mcpstdio.actuate.McpServersEndpoint.InstancesDescriptor;
import dev.mcpstdio.actuate.McpServersEndpoint.LastExitDescriptor;
import dev.mcpstdio.actuate.McpServersEndpoint.McpServerDescriptor;
import dev.mcpstdio.actuate.McpServersEndpoint.McpServersDescriptor;
import dev.mcpstdio.actuate.McpServersEndpoint.ProcessDescriptor;
import dev.mcpstdio.actuate.McpServersEndpoint.ReloadDescriptor;
import dev.mcpstdio.actuate.McpServersEndpoint.SandboxDescriptor;
import dev.mcpstdio.core.containment.Containment.SandboxSettings;
import dev.mcpstdio.core.secrets.SecretSanitizer;
import dev.mcpstdio.core.server.ExitInfo;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.core.tree.ProcessTree;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import org.jspecify.annotations.Nullable;

/**
 * What the endpoint shows of the servers: each one's state and processes, counted once
 * per read, its values shown or withheld.
 *
 * @author mcp-stdio authors
 */
final class ServerDescriptions {

	private final McpStdioServers servers;

	ServerDescriptions(McpStdioServers servers) {
		this.servers = servers;
	}

	/**
	 * Describe every server.
	 * @param showValues whether arguments and stderr tails are shown (sanitized)
	 * @return the servers
	 */
	McpServersDescriptor servers(boolean showValues) {
		Map<String, McpServerDescriptor> descriptors = new LinkedHashMap<>();
		int liveProcesses = 0;
		for (McpStdioServer server : this.servers.list()) {
			McpServerDescriptor descriptor = describe(server, showValues);
			descriptors.put(server.name(), descriptor);
			liveProcesses += descriptor.process().liveProcesses();
		}
		return new McpServersDescriptor(descriptors, liveProcesses, ReloadDescriptor.of(this.servers.lastReload()));
	}

	/**
	 * Describe one server.
	 * @param name the server
	 * @param showValues whether arguments and stderr tails are shown (sanitized)
	 * @return the server, or {@code null} when there is none of that name
	 */
	@Nullable McpServerDescriptor server(String name, boolean showValues) {
		McpStdioServer server = this.servers.find(name);
		return (server != null) ? describe(server, showValues) : null;
	}

	/**
	 * Describe one server, from one census of its processes.
	 * @param server the server
	 * @param showValues whether arguments and stderr tails are shown (sanitized)
	 * @return the server
	 */
	McpServerDescriptor describe(McpStdioServer server, boolean showValues) {
		// One census per server and read: every figure comes from the same snapshot
		ProcessTree.Stats stats = server.treeStats();
		StdioServerSpec spec = server.definition().spec();
		// Unless shown, the executable and a mask for its arguments: they may hold
		// secrets
		String command = showValues ? spec.commandLine()
				: spec.sanitize(spec.command()) + (spec.args().isEmpty() ? "" : " " + SecretSanitizer.MASK);
		ExitInfo exit = server.lastExit();
		SandboxSettings sandbox = spec.sandbox();
		return new McpServerDescriptor(server.state(), server.isInitialized(),
				new ProcessDescriptor(server.pid(), stats.liveProcesses(), stats.memoryBytes(), command,
						server.startedAt(), sandbox.enabled() ? SandboxDescriptor.of(sandbox, spec) : null,
						InstancesDescriptor.of(server)),
				server.restarts(), server.pendingRequests(),
				(exit != null) ? LastExitDescriptor.of(exit, showValues) : null);
	}

}

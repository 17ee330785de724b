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

package dev.mcpstdio.bench.transport;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.mcpstdio.bench.transport.Connection.Side;
import dev.mcpstdio.lifecycle.McpStdioServer;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * The transport benchmark's start-up scenario: {@code bench.transport.servers} servers
 * (20) to all initialized, by a Spring context with the starter, and by SDK clients in
 * parallel and one by one.
 *
 * @author mcp-stdio authors
 */
final class StartupScenario {

	private final Results results;

	private final EchoServers servers;

	StartupScenario(Results results, EchoServers servers) {
		this.results = results;
		this.servers = servers;
	}

	/**
	 * Run it, both paths warmed first.
	 * @throws Exception if a start failed
	 */
	void run() throws Exception {
		// class loading and JIT of both paths first, so that neither pays it in the
		// figure
		Markers warm = new Markers();
		this.servers.context("mcp", warm).close();
		try (Connection connection = Connection.open(Side.THEIRS, "warm", this.servers.command("mcp"), warm)) {
			connection.client().initialize();
		}
		Leftovers.after(warm, "start-up warm-up");
		Markers ours = new Markers();
		long begin = System.nanoTime();
		double oursMillis;
		try (ConfigurableApplicationContext context = this.servers.context("mcp", ours)) {
			oursMillis = (System.nanoTime() - begin) / 1e6;
			long initialized = context.getBeansOfType(McpStdioServer.class)
				.values()
				.stream()
				.filter(McpStdioServer::isInitialized)
				.count();
			if (initialized != this.servers.count()) {
				throw new IllegalStateException(initialized + " of " + this.servers.count() + " servers initialized");
			}
		}
		Leftovers.after(ours, "ours start-up");
		Markers theirs = new Markers();
		begin = System.nanoTime();
		List<Connection> parallel = this.servers.openInitialized(Side.THEIRS, "mcp", theirs);
		double theirsMillis = (System.nanoTime() - begin) / 1e6;
		EchoServers.closeAll(parallel);
		Leftovers.after(theirs, "SDK start-up, parallel");
		Markers sequential = new Markers();
		List<Connection> one = new ArrayList<>();
		begin = System.nanoTime();
		for (int i = 0; i < this.servers.count(); i++) {
			Connection connection = Connection.open(Side.THEIRS, "echo-%02d".formatted(i), this.servers.command("mcp"),
					sequential);
			one.add(connection);
			connection.client().initialize();
		}
		double sequentialMillis = (System.nanoTime() - begin) / 1e6;
		EchoServers.closeAll(one);
		Leftovers.after(sequential, "SDK start-up, sequential");
		System.out.printf(Locale.ROOT,
				"ours %.0f ms (whole Spring context); SDK %.0f ms parallel, %.0f ms one by one%n", oursMillis,
				theirsMillis, sequentialMillis);
		String group = "4. start-up, " + this.servers.count() + " servers to all initialized";
		this.results.time(group, "ours: Spring context run() with the starter; SDK: 20 initialize() in parallel",
				oursMillis, theirsMillis, "ms", "info");
		this.results.time(group, "ours as above; SDK: 20 initialize() one by one (as Spring AI does)", oursMillis,
				sequentialMillis, "ms", "info");
	}

}

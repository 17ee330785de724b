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

package dev.mcpstdio.lifecycle;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.mcpstdio.autoconfigure.McpStdioAutoConfiguration;
import dev.mcpstdio.autoconfigure.McpStdioOrphanGuardAutoConfiguration;
import dev.mcpstdio.lifecycle.forked.ForkedMcpApplication;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * What the container and cgroup tests share: the auto-configuration with the orphan guard
 * and the start-up sweeps, short stop bounds, and a forked application with the same.
 *
 * @author mcp-stdio authors
 */
final class ContainmentContexts {

	static final Duration STDIN_CLOSE = Duration.ofSeconds(1);

	static final Duration TERMINATE = Duration.ofSeconds(1);

	private static final List<String> BOUNDS = List.of("mcp.stdio.defaults.shutdown.drain-timeout=500ms",
			"mcp.stdio.defaults.shutdown.stdin-close-timeout=" + STDIN_CLOSE.toMillis() + "ms",
			"mcp.stdio.defaults.shutdown.terminate-timeout=" + TERMINATE.toMillis() + "ms",
			// the first start of a container can take seconds on a loaded machine
			"mcp.stdio.defaults.startup-timeout=60s");

	private ContainmentContexts() {
	}

	static ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(McpStdioOrphanGuardAutoConfiguration.class, McpStdioAutoConfiguration.class))
			.withPropertyValues(BOUNDS.toArray(String[]::new));
	}

	/**
	 * Start {@link ForkedMcpApplication} in its own JVM with the same bounds and some
	 * servers.
	 * @param servers the servers' properties, {@code key=value}
	 * @return the JVM
	 */
	static ForkedJvm fork(List<String> servers) throws Exception {
		List<String> args = new ArrayList<>(
				List.of("--spring.main.web-application-type=none", "--spring.main.keep-alive=true",
						"--spring.main.banner-mode=off", "--spring.ai.mcp.client.enabled=false"));
		BOUNDS.forEach((property) -> args.add("--" + property));
		servers.forEach((property) -> args.add("--" + property));
		return ForkedJvm.start(ForkedMcpApplication.class.getName(), ForkedMcpApplication.READY, args);
	}

	/**
	 * Return the orphan guard's bound for the processes of these servers.
	 * @return {@code stdin-close + terminate + 1s}
	 */
	static Duration guardBound() {
		return STDIN_CLOSE.plus(TERMINATE).plusSeconds(1);
	}

}

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

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.mcpstdio.autoconfigure.McpStdioAutoConfiguration;
import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.ServerState;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static dev.mcpstdio.ai.AiTestSupport.properties;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link McpStdioClientTransport} against the orders its scheduler may run its tasks in.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class McpStdioClientTransportTests {

	private final Fixtures fixtures;

	McpStdioClientTransportTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void aClientWhoseConnectRunsLateIsToldWhyItsServerFailed() {
		// Under load the connect (on the scheduler) may run after the client's first
		// message: that message waits for it, then fails naming the exit, well within the
		// client's own timeouts
		ScheduledExecutorService threads = Executors.newScheduledThreadPool(2);
		try {
			run(threads);
		}
		finally {
			// after the context: its servers' stops still hand the transport work
			threads.shutdownNow();
		}
	}

	private void run(ScheduledExecutorService threads) {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(McpStdioAutoConfiguration.class))
			.withPropertyValues(properties(AiTestSupport.testServer("gone", this.fixtures.id(), "--exit-now", "3"),
					List.of("mcp.stdio.servers.gone.required=false")))
			.run((context) -> {
				McpStdioServer server = context.getBean(McpStdioServers.class).get("gone");
				Await.within(Duration.ofSeconds(20)).until("gone FAILED", () -> server.state() == ServerState.FAILED);
				McpStdioClientTransport transport = new McpStdioClientTransport(server,
						new JacksonMcpJsonMapper(JsonMapper.shared()), firstTaskLate(threads), () -> true);
				try (McpSyncClient client = McpClient.sync(transport)
					.requestTimeout(Duration.ofSeconds(5))
					.initializationTimeout(Duration.ofSeconds(5))
					.build()) {
					long begin = System.nanoTime();
					assertThatThrownBy(client::initialize)
						.satisfies((thrown) -> assertThat(AiTestSupport.messages(thrown))
							.contains("MCP server 'gone' process exited unexpectedly with exit code 3; stderr: boom"));
					assertThatThrownBy(client::listTools)
						.satisfies((thrown) -> assertThat(AiTestSupport.messages(thrown))
							.contains("MCP server 'gone' process exited unexpectedly with exit code 3"));
					// not the client's own 5 s timeouts
					assertThat(Duration.ofNanos(System.nanoTime() - begin)).isLessThan(Duration.ofSeconds(4));
				}
			});
	}

	/**
	 * A scheduler whose first task (the connect) runs 500 ms late, the others at once.
	 */
	private static Scheduler firstTaskLate(ScheduledExecutorService threads) {
		AtomicInteger tasks = new AtomicInteger();
		Executor executor = (task) -> {
			if (tasks.getAndIncrement() == 0) {
				threads.schedule(task, 500, TimeUnit.MILLISECONDS);
			}
			else {
				threads.execute(task);
			}
		};
		return Schedulers.fromExecutor(executor);
	}

}

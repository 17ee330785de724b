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

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.test.TestHost;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the one send path of {@link ServerConnection}: one wait for a settled state
 * per send, then the client's hook, then the message.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class ServerConnectionSendTests {

	private static final String PING = "{\"jsonrpc\":\"2.0\",\"id\":\"p1\",\"method\":\"ping\"}";

	private final Fixtures fixtures;

	private final List<McpStdioServer> servers = new ArrayList<>();

	@TempDir
	private Path dir;

	ServerConnectionSendTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@AfterEach
	void cleanUp() {
		Fixtures.cleanUp(this.servers, McpStdioServer::stopServer);
	}

	@Test
	void aClientsSendWaitsOnceForTheStartThenItsHookSeesTheProcessBeforeItsMessage() throws Exception {
		McpStdioServer server = server(perStart("hold"));
		BlockingQueue<String> answers = new LinkedBlockingQueue<>();
		server.clientConnection().attach((message) -> answers.add(message.text()));
		server.startInBackground();
		Await.that("the start under way", () -> Files.exists(this.dir.resolve("starts")));
		List<String> hooked = new CopyOnWriteArrayList<>();
		CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> server.clientConnection()
			.send(PING, "p1", (generation) -> hooked.add(generation + " " + server.state() + " "
					+ server.isInitialized() + " " + server.process().pendingRequests())));
		Thread.sleep(300);
		assertThat(sent).as("waiting for the start").isNotDone();
		assertThat(hooked).as("the hook runs once settled, not before").isEmpty();
		Files.createFile(this.dir.resolve("go"));
		sent.get(30, TimeUnit.SECONDS);
		// once, on the process the message then went to, before it was written
		assertThat(hooked).containsExactly("1 RUNNING true 0");
		assertThat(answers.poll(30, TimeUnit.SECONDS)).contains("\"echo\":\"ping\"");
	}

	@Test
	void aHookThatSaysNoSendsNothing() throws Exception {
		McpStdioServer server = server(perStart("serve"));
		BlockingQueue<String> answers = new LinkedBlockingQueue<>();
		server.clientConnection().attach((message) -> answers.add(message.text()));
		server.startServer();
		server.clientConnection().send(PING, "p1", (generation) -> false);
		assertThat(server.process().pendingRequests()).isZero();
		assertThat(answers.poll(300, TimeUnit.MILLISECONDS)).isNull();
		server.clientConnection().send(PING, "p1", (generation) -> generation == 1);
		assertThat(answers.poll(30, TimeUnit.SECONDS)).contains("\"echo\":\"ping\"");
	}

	/** The fixture whose every start does as one of the words says. */
	private StdioServerSpec perStart(String... words) {
		List<String> args = new ArrayList<>(List.of(this.dir.toString()));
		args.addAll(List.of(words));
		return this.fixtures.spec("files", "per-start.sh", args.toArray(String[]::new));
	}

	private McpStdioServer server(StdioServerSpec spec) {
		McpStdioServer server = new McpStdioServer(
				SpecDefaults.definition(spec.toBuilder().startupTimeout(Duration.ofMinutes(5)).build()),
				TestHost.shared());
		this.servers.add(server);
		return server;
	}

}

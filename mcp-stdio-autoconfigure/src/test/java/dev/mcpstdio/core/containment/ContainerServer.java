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

package dev.mcpstdio.core.containment;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.tree.ProcessMarkers;
import dev.mcpstdio.test.ContainerEngines;
import dev.mcpstdio.test.Fixtures;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A container server of a test, started the way the launcher starts one.
 *
 * @author mcp-stdio authors
 */
final class ContainerServer implements AutoCloseable {

	final Container launch;

	final Process cli;

	/** The start's id, as in its instance label. */
	final String instance;

	private final BufferedReader stdout;

	private ContainerServer(Container launch, Process cli, String instance) {
		this.launch = launch;
		this.cli = cli;
		this.instance = instance;
		this.stdout = new BufferedReader(new InputStreamReader(cli.getInputStream(), StandardCharsets.UTF_8));
	}

	/**
	 * Start a fixture server of the test image as a container.
	 * @param fixtures the test's marker
	 * @param name the server name
	 * @param instance the start's id
	 * @param owner the owner named in labels and markers
	 * @param options more options of {@code run} (before the image)
	 * @param script the server script in the image, such as {@code /srv/echo.sh}
	 * @return the running server
	 */
	static ContainerServer start(Fixtures fixtures, String name, String instance, ProcessMarkers.Owner owner,
			List<String> options, String script) throws IOException {
		String engineCommand = ContainerEngines.require();
		List<String> args = new ArrayList<>(List.of("run", "-i", "--label", fixtures.containerLabel(), "-e",
				Fixtures.MARKER + "=" + fixtures.id()));
		args.addAll(options);
		args.addAll(List.of(ContainerEngines.IMAGE, "sh", script));
		ContainerRun run = ContainerRun.recognise(engineCommand, args);
		assertThat(run).isNotNull();
		List<String> command = new ArrayList<>(List.of(engineCommand));
		command.addAll(args);
		Container launch = new Container(ContainmentAccess.host(),
				new Containment.Start(name, command, null, System.getenv(), new Containment.Settings(
						SpecDefaults.container(), SpecDefaults.sandbox(), Duration.ofSeconds(1))),
				run, instance, owner);
		ProcessBuilder builder = new ProcessBuilder(launch.wrap(command));
		builder.environment().put(Fixtures.MARKER, fixtures.id());
		builder.environment().put(ProcessMarkers.SERVER, name);
		builder.environment().put(ProcessMarkers.OWNER_PID, Long.toString(owner.pid()));
		builder.environment().put(ProcessMarkers.INSTANCE, instance);
		builder.redirectError(ProcessBuilder.Redirect.DISCARD);
		return new ContainerServer(launch, builder.start(), instance);
	}

	/**
	 * Send a request and return the answer line.
	 * @param id the request id
	 * @return the answer
	 */
	String request(int id) throws Exception {
		OutputStream stdin = this.cli.getOutputStream();
		stdin.write(("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"ping\"}\n").getBytes(StandardCharsets.UTF_8));
		stdin.flush();
		// the first start of a container can take a few seconds on a loaded machine
		return CompletableFuture.supplyAsync(this::readLine).get(60, TimeUnit.SECONDS);
	}

	private String readLine() {
		try {
			String line = this.stdout.readLine();
			return (line != null) ? line : "<EOF>";
		}
		catch (IOException ex) {
			return "<" + ex.getMessage() + ">";
		}
	}

	String containerId() {
		String id = ContainmentAccess.awaitContainerId(this.launch, Duration.ofSeconds(30));
		assertThat(id).as("container id").isNotNull().matches("[0-9a-f]{64}");
		return id;
	}

	void closeStdin() throws IOException {
		this.cli.getOutputStream().close();
	}

	boolean awaitCliExit(Duration within) throws InterruptedException {
		return this.cli.waitFor(within.toMillis(), TimeUnit.MILLISECONDS);
	}

	@Override
	public void close() {
		this.cli.destroyForcibly();
		this.launch.release();
	}

}

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

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ContainerRun}: what is a container run, where our options go, what is
 * refused.
 *
 * @author mcp-stdio authors
 */
class ContainerRunTests {

	private static ContainerRun recognise(String command, String... args) {
		ContainerRun run = ContainerRun.recognise(command, List.of(args));
		assertThat(run).as("recognised").isNotNull();
		return run;
	}

	private static ContainerRun.InvalidCommandException refused(String... args) {
		try {
			ContainerRun.recognise("docker", List.of(args));
		}
		catch (ContainerRun.InvalidCommandException ex) {
			return ex;
		}
		throw new AssertionError("not refused: docker " + String.join(" ", args));
	}

	@Test
	void optionsThatGiveTheHostAreFoundAsWritten() {
		ContainerRun run = ContainerRun.recognise("docker",
				List.of("run", "-i", "--privileged", "--pid", "host", "--net=host", "--ipc=private", "-v", "/srv:/srv",
						"--volume=/:/host", "--mount", "type=bind,src=/,dst=/h", "--mount",
						"type=volume,source=/,target=/v", "image"));
		assertThat(run.hostAccess()).containsExactly("--privileged", "--pid=host", "--net=host", "--volume /:/host",
				"--mount type=bind,src=/,dst=/h");
		assertThat(ContainerRun.recognise("podman", List.of("run", "-i", "--privileged=false", "image")).hostAccess())
			.isEmpty();
	}

	@Test
	void dockerAndPodmanRunAreRecognisedByFileName() {
		recognise("docker", "run", "-i", "--rm", "mcp/fetch");
		recognise("/usr/bin/podman", "run", "-i", "img");
		recognise("C:\\bin\\docker.exe", "run", "-i", "img");
		assertThat(ContainerRun.engineOf("docker")).isEqualTo("docker");
		assertThat(ContainerRun.engineOf("/usr/bin/podman")).isEqualTo("podman");
		assertThat(ContainerRun.engineOf("C:\\bin\\docker.exe")).isEqualTo("docker");
		assertThat(recognise("docker", "container", "run", "-i", "img").argsWith(List.of("--ours")))
			.containsExactly("container", "run", "--ours", "-i", "img");
	}

	@Test
	void otherCommandsAndSubcommandsAreNotContainerRuns() {
		assertThat(ContainerRun.recognise("npx", List.of("-y", "docker", "run", "-i", "img"))).isNull();
		assertThat(ContainerRun.recognise("docker-mcp", List.of("run", "-i", "img"))).isNull();
		assertThat(ContainerRun.recognise("docker", List.of("exec", "-i", "box", "run"))).isNull();
		assertThat(ContainerRun.recognise("docker", List.of("compose", "run", "svc"))).isNull();
		assertThat(ContainerRun.recognise("docker", List.of())).isNull();
		assertThat(ContainerRun.recognise("podman", List.of("--", "run", "-i", "img"))).isNull();
	}

	@Test
	void globalOptionsBeforeRunAreAllowedAndKeptForTheEngine() {
		ContainerRun run = recognise("docker", "--context", "remote", "-H", "tcp://h:2376", "--tls", "--log-level=warn",
				"run", "-i", "img");
		assertThat(run.globalOptions()).containsExactly("--context", "remote", "-H", "tcp://h:2376", "--tls",
				"--log-level=warn");
		assertThat(
				recognise("podman", "--remote", "--connection", "c", "container", "run", "-i", "img").globalOptions())
			.containsExactly("--remote", "--connection", "c");
		// "run" as the value of a global option is not the subcommand
		assertThat(ContainerRun.recognise("docker", List.of("--context", "run", "ps"))).isNull();
	}

	@Test
	void ourOptionsGoRightAfterRunAndTheUsersArgumentsKeepTheirPlaceAndMeaning() {
		ContainerRun run = recognise("docker", "--context", "x", "run", "-i", "--rm", "-e", "A=1", "img", "serve", "-t",
				"-d");
		assertThat(run.argsWith(List.of("--label", "k=v"))).containsExactly("--context", "x", "run", "--label", "k=v",
				"-i", "--rm", "-e", "A=1", "img", "serve", "-t", "-d");
		assertThat(run.argsWith(List.of())).containsExactly("--context", "x", "run", "-i", "--rm", "-e", "A=1", "img",
				"serve", "-t", "-d");
	}

	@Test
	void optionsAfterTheImageBelongToTheContainersCommand() {
		ContainerRun run = recognise("docker", "run", "-i", "img", "-t", "--detach", "--cidfile", "x", "--init");
		assertThat(run.cidfile()).isNull();
		assertThat(run.init()).isFalse();
	}

	@Test
	void valuesOfOptionsAreNotMistakenForTheImage() {
		ContainerRun run = recognise("docker", "run", "-i", "-v", "/a:/b", "-w", "/b", "--network", "none", "-p",
				"80:80", "--name", "mine", "-u", "1000", "--init", "--entrypoint", "sh", "--cidfile", "/tmp/x.cid",
				"registry.local/team/img:1", "/srv/echo.sh");
		assertThat(run.cidfile()).isEqualTo("/tmp/x.cid");
		assertThat(run.init()).isTrue();
		// after "--" and after the image, options are the image's
		assertThat(recognise("docker", "run", "-i", "--", "img", "--init").init()).isFalse();
		assertThat(recognise("docker", "run", "-ie", "A=1", "--init", "img").init()).isTrue();
		assertThat(recognise("docker", "run", "-ie", "A=1", "img", "--init").init()).isFalse();
		assertThat(recognise("docker", "run", "-i", "-eA=1", "--env=B=2", "--cidfile=n", "img").cidfile())
			.isEqualTo("n");
	}

	@Test
	void interactiveMayBeSpelledAnyWayTheEnginesAccept() {
		for (List<String> args : List.of(List.of("run", "-i", "img"), List.of("run", "--interactive", "img"),
				List.of("run", "-i=true", "img"), List.of("run", "--interactive=1", "img"),
				List.of("run", "-Pi", "img"), List.of("run", "-i", "--tty=false", "img"),
				List.of("run", "-it=false", "img"), List.of("run", "-i", "-d=false", "img"),
				List.of("run", "-i", "-a", "stdout", "-a", "stderr", "img"))) {
			assertThat(ContainerRun.recognise("docker", args)).as(args.toString()).isNotNull();
		}
	}

	@Test
	void aTerminalIsRefusedNamingTheArgument() {
		ContainerRun.InvalidCommandException ex = refused("run", "-i", "--rm", "-t", "img");
		assertThat(ex.getMessage()).contains("-t (--tty)").contains("remove it");
		assertThat(ex.argIndex()).isEqualTo(3);
		assertThat(refused("run", "-it", "img").argIndex()).isEqualTo(1);
		assertThat(refused("run", "-ti", "img").argIndex()).isEqualTo(1);
		assertThat(refused("run", "-i", "--tty", "img").argIndex()).isEqualTo(2);
		assertThat(refused("run", "-i", "--tty=true", "img").argIndex()).isEqualTo(2);
	}

	@Test
	void detachingIsRefused() {
		assertThat(refused("run", "-i", "-d", "img").getMessage()).contains("-d (--detach)");
		assertThat(refused("run", "-di", "img").argIndex()).isEqualTo(1);
		assertThat(refused("run", "-i", "--detach=true", "img").argIndex()).isEqualTo(2);
	}

	@Test
	void aRunWithoutInteractiveIsRefused() {
		assertThat(refused("run", "--rm", "img").getMessage()).contains("without -i (--interactive)");
		assertThat(refused("run", "--rm", "img").argIndex()).isEqualTo(-1);
		assertThat(refused("run", "--interactive=false", "img").getMessage()).contains("without -i");
		assertThat(refused("run", "-i=false", "img").getMessage()).contains("without -i");
		assertThat(refused("run", "-i", "--interactive=false", "img").getMessage()).contains("without -i");
		// -i after the image is the container's own argument
		assertThat(refused("run", "img", "-i").getMessage()).contains("without -i");
	}

	@Test
	void anAttachWithoutStdoutIsRefused() {
		assertThat(refused("run", "-i", "-a", "stderr", "img").getMessage()).contains("-a (--attach) without stdout");
	}

	@Test
	void theUserMayNotSetOurMarkersOrLabels() {
		assertThat(refused("run", "-i", "-e", "MCP_STDIO_SERVER=x", "img").getMessage())
			.contains("-e MCP_STDIO_SERVER is set by mcp-stdio");
		assertThat(refused("run", "-i", "--env=MCP_STDIO_OWNER_PID=1", "img").argIndex()).isEqualTo(2);
		assertThat(refused("run", "-i", "-eMCP_STDIO_INSTANCE", "img").argIndex()).isEqualTo(2);
		assertThat(refused("run", "-i", "--label", "dev.mcpstdio.owner=1@2", "img").getMessage())
			.contains("--label dev.mcpstdio.owner");
		assertThat(refused("run", "-i", "-l", "dev.mcpstdio.server", "img").argIndex()).isEqualTo(2);
		assertThat(ContainerRun.recognise("docker", List.of("run", "-i", "-e", "MCP_STDIO_OTHER=1", "img")))
			.isNotNull();
	}

	@Test
	void aRunWithoutImageIsRefused() {
		assertThat(refused("run", "-i", "--rm").getMessage()).contains("no image");
	}

	@Test
	void aBooleanFlagWithAValueThatIsNotABooleanIsRefused() {
		assertThat(refused("run", "--rm=yes", "-i", "img").getMessage()).contains("not a boolean");
	}

}

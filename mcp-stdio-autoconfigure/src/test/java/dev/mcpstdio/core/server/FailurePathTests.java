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

package dev.mcpstdio.core.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.server.StdioServerProcess.StopResult;
import dev.mcpstdio.core.tree.Platform;
import dev.mcpstdio.core.tree.ProcReader;
import dev.mcpstdio.core.tree.ProcessScanner;
import dev.mcpstdio.core.tree.ProcessTable;
import dev.mcpstdio.test.Await;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.test.TestHost;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests that every way a start or a stop can fail leaves no process and a definite
 * result, with real fixture processes.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class FailurePathTests {

	private final Fixtures fixtures;

	private final List<StdioServerProcess> started = new ArrayList<>();

	FailurePathTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@AfterEach
	void noProcessLeftBehind() {
		Fixtures.cleanUp(this.started, StdioServerProcess::stop);
	}

	@ParameterizedTest
	@EnumSource(StdioServerProcess.Step.class)
	void aStepThatFailsStillEndsTheWholeTree(StdioServerProcess.Step failing) throws Exception {
		StdioServerProcess process = TestHost.shared()
			.start(this.fixtures.spec("family", "with-children.sh"), MessageListener.NONE);
		this.started.add(process);
		awaitAlive(4);
		process.onStopStep((step) -> {
			if (step == failing) {
				throw new IllegalStateException("injected failure in " + step);
			}
		});
		StopResult result = process.stop();
		assertThat(result.wasRunning()).isTrue();
		assertThat(result.exit()).isNotNull();
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
		// and the stop is done: every later caller gets the same result at once
		assertThat(process.stop()).isSameAs(result);
	}

	@Test
	void aFailureAfterTheProcessWasSpawnedEndsIt() {
		// A send timeout too long for nanoseconds fails the setup after the spawn
		StdioServerSpec spec = this.fixtures.spec("overflow", "echo.sh")
			.toBuilder()
			.sendTimeout(Duration.ofDays(200_000))
			.build();
		assertThatExceptionOfType(McpStdioException.class)
			.isThrownBy(() -> TestHost.shared().start(spec, MessageListener.NONE))
			.withMessageContaining("overflow");
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void withoutSetsidAServerSharesTheJvmsSessionAndItsTreeIsStillEnded() throws Exception {
		Platform current = Platform.current();
		ServerHost host = ServerHost.builder()
			.platform(new Platform(current.osName(), null, current.hasProcFileSystem(), current.shell()))
			.build();
		StdioServerProcess process = host.start(this.fixtures.spec("family", "with-children.sh"), MessageListener.NONE);
		this.started.add(process);
		awaitAlive(4);
		ProcessTable table = new ProcessScanner(Platform.current(), ProcReader.system()).scan();
		assertThat(table.get(process.pid()).sid()).as("not a session of its own").isNotEqualTo(process.pid());
		assertThat(process.treeStats().liveProcesses()).isEqualTo(4);
		StopResult result = process.stop();
		assertThat(result.outcome()).isEqualTo(ExitCause.CLEAN);
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	@Test
	void inheritEnvGivesTheServerTheApplicationsWholeEnvironment() throws Exception {
		Map<String, String> jvm = Map.of("PATH", System.getenv("PATH"), "MY_SETTING", "setting-value", "HOME", "/tmp");
		ServerHost host = ServerHost.builder().environment(jvm).build();
		StdioServerSpec allowList = this.fixtures.spec("allow", "print-env.sh");
		StdioServerSpec inherit = SpecDefaults.builder("inherit", allowList.command())
			.args(allowList.args())
			.env(allowList.env())
			.inheritEnv(true)
			.build();
		assertThat(environmentOf(host, allowList)).doesNotContain("MY_SETTING=setting-value").contains("HOME=/tmp");
		assertThat(environmentOf(host, inherit)).contains("MY_SETTING=setting-value", "HOME=/tmp");
	}

	private List<String> environmentOf(ServerHost host, StdioServerSpec spec) throws Exception {
		StdioServerProcess process = host.start(spec, MessageListener.NONE);
		this.started.add(process);
		Await.that("the environment printed", () -> process.stderrTail().contains("env printed"));
		return process.stderrTail();
	}

	private void awaitAlive(int count) {
		List<Long> alive = Await.within(Duration.ofSeconds(10))
			.every(Duration.ofMillis(20))
			.value(this.fixtures::alive, (pids) -> pids.size() >= count);
		assertThat(alive).hasSizeGreaterThanOrEqualTo(count);
	}

}

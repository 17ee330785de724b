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

import java.lang.reflect.Method;
import java.time.Duration;

import dev.mcpstdio.core.guard.OrphanGuard;
import dev.mcpstdio.test.Fixtures;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link McpStdioOrphanGuardAutoConfiguration}.
 *
 * @author mcp-stdio authors
 */
class McpStdioOrphanGuardAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(McpStdioOrphanGuardAutoConfiguration.class, McpStdioAutoConfiguration.class));

	private final Fixtures fixtures = new Fixtures();

	@AfterEach
	void cleanUp() {
		OrphanGuard.shared().setEnabled(true);
		this.fixtures.killLeftovers();
	}

	@Test
	void startUpSweepsLeftoversOfDeadOwners() throws Exception {
		long leftover = leftover("TERM");
		this.runner.withPropertyValues("mcp.stdio.defaults.shutdown.terminate-timeout=300ms").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(this.fixtures.alive()).doesNotContain(leftover);
		});
		this.fixtures.assertNoneAlive(Duration.ofSeconds(2));
	}

	@Test
	void disabledGuardNeitherSweepsNorGuards() throws Exception {
		long leftover = leftover("HUP");
		this.runner.withPropertyValues("mcp.stdio.orphan-guard.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(OrphanGuard.shared().isEnabled()).isFalse();
			assertThat(this.fixtures.alive()).contains(leftover);
		});
		ProcessHandle.of(leftover).ifPresent(ProcessHandle::destroyForcibly);
		this.fixtures.assertNoneAlive(Duration.ofSeconds(2));
	}

	@Test
	void nothingWhenMcpStdioIsDisabled() {
		this.runner.withPropertyValues("mcp.stdio.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean("mcpStdioOrphanGuard"));
	}

	private long leftover(String ignored) throws Exception {
		// the helper lives with the core tests
		Class<?> tests = Class.forName("dev.mcpstdio.core.guard.OrphanSweepTests");
		Method method = tests.getDeclaredMethod("leftover", Fixtures.class, String.class);
		method.setAccessible(true);
		return (long) method.invoke(null, this.fixtures, ignored);
	}

}

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

import java.nio.file.Path;

import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the upper bounds of the settings (checked by {@link ConfiguredServers}): each
 * value beyond its bound stops start-up with a report naming server and property, and no
 * process starts, not even that of a valid server next to it.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class McpStdioLimitsTests {

	private final Fixtures fixtures;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(McpStdioAutoConfiguration.class));

	@TempDir
	Path temp;

	McpStdioLimitsTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void theWitnessStartsWhenTheConfigurationIsValid() {
		// the proof that the tests below could see a start
		Path started = this.temp.resolve("started");
		this.runner.withPropertyValues(ConfigurationTestSupport.witness("good", this.fixtures, started))
			.withPropertyValues(limitValues("a"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(started).exists();
				assertThat(context.getBean(McpStdioServers.class).get("a").definition().spec().maxMessageSize())
					.isEqualTo(DataSize.ofMegabytes(256).toBytes());
			});
	}

	@ParameterizedTest(name = "{0}={1}")
	@CsvSource(delimiter = ';',
			value = { "startup-timeout; 200000d; must be at most 1h, was 200000d; set a duration up to 1h",
					"send-timeout; 200000d; must be at most 1h, was 200000d; set a duration up to 1h",
					"send-timeout; 61m; must be at most 1h, was 61m; set a duration up to 1h",
					"shutdown.drain-timeout; 200000d; must be at most 10m, was 200000d; set a duration up to 10m",
					"shutdown.stdin-close-timeout; 11m; must be at most 10m, was 11m; set a duration up to 10m",
					"shutdown.terminate-timeout; 1d; must be at most 10m, was 1d; set a duration up to 10m",
					"restart.window; 2d; must be at most 1d, was 2d; set a duration up to 1d",
					"restart.initial-backoff; 2h; must be at most 1h, was 2h; set a duration up to 1h",
					"restart.max-backoff; 1d; must be at most 1h, was 1d; set a duration up to 1h",
					"max-message-size; 257MB; must be between 1B and 256MB, was 269484032B; set a size such as 16MB",
					"max-message-size; 0B; must be between 1B and 256MB, was 0B; set a size such as 16MB",
					"stderr-tail-lines; 10001; must be between 0 and 10000, was 10001; set a small count such as 50",
					"stderr-tail-lines; -1; must be between 0 and 10000, was -1; set a small count such as 50",
					"restart.max-restarts; 1001; must be between 0 and 1000, was 1001; set a small count such as 5",
					"restart.max-restarts; -1; must be between 0 and 1000, was -1; set a small count such as 5" })
	void valueBeyondItsBound(String key, String value, String problem, String action) {
		Path started = this.temp.resolve("started");
		this.runner.withPropertyValues(ConfigurationTestSupport.witness("good", this.fixtures, started))
			.withPropertyValues(echo("a"))
			.withPropertyValues("mcp.stdio.servers.a." + key + "=" + value)
			.run((context) -> {
				ConfigurationTestSupport.assertFailure(context, "a", "mcp.stdio.servers.a." + key, problem, action);
				ConfigurationTestSupport.assertNeverStarted(started);
			});
	}

	@Test
	void inheritedDurationAboveItsBoundNamesTheDefaultsProperty() {
		Path started = this.temp.resolve("started");
		this.runner.withPropertyValues(ConfigurationTestSupport.witness("good", this.fixtures, started))
			.withPropertyValues("mcp.stdio.defaults.shutdown.drain-timeout=200000d")
			.run((context) -> {
				ConfigurationTestSupport.assertFailure(context, "good", "mcp.stdio.defaults.shutdown.drain-timeout",
						"must be at most 10m, was 200000d", "set a duration up to 10m");
				ConfigurationTestSupport.assertNeverStarted(started);
			});
	}

	@ParameterizedTest(name = "[{0}]")
	@CsvSource(delimiter = ';', value = { "-starts-with-dash", "ends-with-dot.", "two..dots", "has/slash", "has space",
			"über", "a2345678901234567890123456789012345678901234567890123456789012345" })
	void unsafeName(String name) {
		Path started = this.temp.resolve("started");
		String prefix = "mcp.stdio.servers[" + name + "].";
		this.runner.withPropertyValues(ConfigurationTestSupport.witness("good", this.fixtures, started))
			.withPropertyValues(prefix + "command=sh", prefix + "args=" + Fixtures.script("echo.sh"),
					prefix + "env." + Fixtures.MARKER + "=" + this.fixtures.id())
			.run((context) -> {
				ConfigurationTestSupport.assertFailure(context, name, "mcp.stdio.servers." + name,
						"the name must be 1 to 64 letters, digits, '.', '_' or '-', begin and end with a letter or "
								+ "digit, and have no '..'",
						"rename the server");
				ConfigurationTestSupport.assertNeverStarted(started);
			});
	}

	@Test
	void longestSafeNameIsAccepted() {
		String name = "a23456789012345678901234567890123456789012345678901234567890.-_4";
		assertThat(name).hasSize(64);
		String prefix = "mcp.stdio.servers[" + name + "].";
		this.runner
			.withPropertyValues(prefix + "command=sh", prefix + "args=" + Fixtures.script("echo.sh"),
					prefix + "env." + Fixtures.MARKER + "=" + this.fixtures.id(), prefix + "enabled=false")
			.run((context) -> assertThat(context.getBean(McpStdioServers.class).get(name)).isNotNull());
	}

	/**
	 * Every setting at its bound: accepted.
	 */
	private String[] limitValues(String name) {
		String prefix = "mcp.stdio.servers." + name + ".";
		String[] echo = echo(name);
		String[] values = { prefix + "startup-timeout=1h", prefix + "send-timeout=1h",
				prefix + "shutdown.drain-timeout=10m", prefix + "shutdown.stdin-close-timeout=10m",
				prefix + "shutdown.terminate-timeout=10m", prefix + "restart.window=1d",
				prefix + "restart.initial-backoff=1h", prefix + "restart.max-backoff=1h",
				prefix + "restart.max-restarts=1000", prefix + "max-message-size=256MB",
				prefix + "stderr-tail-lines=10000", prefix + "enabled=false" };
		String[] all = new String[echo.length + values.length];
		System.arraycopy(echo, 0, all, 0, echo.length);
		System.arraycopy(values, 0, all, echo.length, values.length);
		return all;
	}

	private String[] echo(String name) {
		return ConfigurationTestSupport.echo(name, this.fixtures);
	}

}

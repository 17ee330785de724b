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

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.lifecycle.observation.DefaultMcpOperationObservationConvention;
import dev.mcpstdio.lifecycle.observation.McpOperationContext;
import dev.mcpstdio.lifecycle.observation.McpOperationObservationConvention;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link McpStdioObservationAutoConfiguration}: every server's requests are
 * observed where an {@code ObservationRegistry} is, unless
 * {@code mcp.stdio.observations.enabled=false}, with a convention bean replacing the
 * default one; it backs off without Micrometer's observation API.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class McpStdioObservationAutoConfigurationTests {

	private static final String POST_PROCESSOR = "mcpStdioRequestObservationsPostProcessor";

	private final Fixtures fixtures;

	private final ApplicationContextRunner runner;

	McpStdioObservationAutoConfigurationTests(Fixtures fixtures) {
		this.fixtures = fixtures;
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(McpStdioAutoConfiguration.class,
					ObservationAutoConfiguration.class, McpStdioObservationAutoConfiguration.class))
			.withUserConfiguration(Collecting.class)
			.withPropertyValues("mcp.stdio.servers.observed.command=sh",
					"mcp.stdio.servers.observed.args=" + Fixtures.script("tools.sh"),
					"mcp.stdio.servers.observed.env." + Fixtures.MARKER + "=" + fixtures.id());
	}

	@Test
	void everyServersRequestsAreObservedByDefault() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().hasBean(POST_PROCESSOR);
			McpStdioServer server = context.getBean(McpStdioServers.class).get("observed");
			server.request("a-1", toolCall("a-1", "echo")).get(10, TimeUnit.SECONDS);
			McpOperationContext observed = next(context.getBean(Collecting.class).ended);
			assertThat(observed.getName()).isEqualTo("mcp.client.operation.duration");
			assertThat(observed.getContextualName()).isEqualTo("tools/call echo");
			assertThat(observed.getLowCardinalityKeyValues()).contains(KeyValue.of("gen_ai.tool.name", "echo"),
					KeyValue.of("server", "observed"));
		});
	}

	@Test
	void aConventionBeanReplacesTheDefaultOne() {
		this.runner.withUserConfiguration(CustomConvention.class).run((context) -> {
			McpStdioServer server = context.getBean(McpStdioServers.class).get("observed");
			server.request("b-1", toolCall("b-1", "echo")).get(10, TimeUnit.SECONDS);
			McpOperationContext observed = next(context.getBean(Collecting.class).ended);
			assertThat(observed.getContextualName()).isEqualTo("mcp echo");
			assertThat(observed.getLowCardinalityKeyValues()).contains(KeyValue.of("team", "search"),
					KeyValue.of("mcp.method.name", "tools/call"));
		});
	}

	@Test
	void nothingIsObservedWhenTurnedOff() {
		this.runner.withPropertyValues("mcp.stdio.observations.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(POST_PROCESSOR);
			McpStdioServer server = context.getBean(McpStdioServers.class).get("observed");
			server.request("c-1", toolCall("c-1", "echo")).get(10, TimeUnit.SECONDS);
			assertThat(context.getBean(Collecting.class).ended.poll(200, TimeUnit.MILLISECONDS)).isNull();
		});
	}

	@Test
	void backsOffWithoutAnObservationRegistry() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(McpStdioAutoConfiguration.class, McpStdioObservationAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(POST_PROCESSOR));
	}

	@Test
	void backsOffWithoutMicrometersObservationApi() {
		new ApplicationContextRunner().withClassLoader(new FilteredClassLoader("io.micrometer.observation"))
			.withConfiguration(
					AutoConfigurations.of(McpStdioAutoConfiguration.class, McpStdioObservationAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(POST_PROCESSOR));
	}

	private static McpOperationContext next(BlockingQueue<McpOperationContext> ended) throws InterruptedException {
		McpOperationContext context = ended.poll(10, TimeUnit.SECONDS);
		assertThat(context).as("an observation that ended").isNotNull();
		return context;
	}

	static String toolCall(String id, String tool) {
		return "{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
				+ "\",\"arguments\":{}}}";
	}

	@Configuration(proxyBeanMethods = false)
	static class Collecting implements ObservationHandler<McpOperationContext> {

		final BlockingQueue<McpOperationContext> ended = new LinkedBlockingQueue<>();

		@Override
		public void onStop(McpOperationContext context) {
			this.ended.add(context);
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof McpOperationContext;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CustomConvention {

		@Bean
		McpOperationObservationConvention teamConvention() {
			return new DefaultMcpOperationObservationConvention() {

				@Override
				protected KeyValues keyValues(McpOperationContext context) {
					return super.keyValues(context).and("team", "search");
				}

				@Override
				protected String contextualName(McpOperationContext context) {
					return "mcp " + context.getTarget();
				}

			};
		}

	}

}

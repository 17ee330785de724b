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

package dev.mcpstdio.lifecycle.observation;

import dev.mcpstdio.core.secrets.SecretValues;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DefaultMcpOperationObservationConvention} and the names it is given
 * ({@link OperationNames}): the OpenTelemetry MCP keys, built once per kind of request,
 * and bounded.
 *
 * @author mcp-stdio authors
 */
class DefaultMcpOperationObservationConventionTests {

	private final DefaultMcpOperationObservationConvention convention = new DefaultMcpOperationObservationConvention();

	private final OperationNames names = new OperationNames("files", SecretValues.NONE);

	@Test
	void aToolCallHasTheKeysOfTheConventions() {
		McpOperationContext context = new McpOperationContext(this.names.operation("tools/call", "read_file"), "7-1");
		assertThat(this.convention.getName()).isEqualTo("mcp.client.operation.duration");
		assertThat(this.convention.getContextualName(context)).isEqualTo("tools/call read_file");
		assertThat(this.convention.getLowCardinalityKeyValues(context)).containsExactlyInAnyOrder(
				KeyValue.of("server", "files"), KeyValue.of("mcp.method.name", "tools/call"),
				KeyValue.of("gen_ai.tool.name", "read_file"), KeyValue.of("network.transport", "pipe"));
		assertThat(this.convention.getHighCardinalityKeyValues(context))
			.containsExactly(KeyValue.of("jsonrpc.request.id", "7-1"));
		assertThat(context.getKind()).isEqualTo(io.micrometer.observation.transport.Kind.CLIENT);
		assertThat(context.getRemoteServiceName()).isEqualTo("files");
	}

	@Test
	void aPromptHasItsNameAndOtherMethodsTargetTheServer() {
		McpOperationContext prompt = new McpOperationContext(this.names.operation("prompts/get", "review"), "1");
		assertThat(this.convention.getContextualName(prompt)).isEqualTo("prompts/get review");
		assertThat(this.convention.getLowCardinalityKeyValues(prompt)).containsExactlyInAnyOrder(
				KeyValue.of("server", "files"), KeyValue.of("mcp.method.name", "prompts/get"),
				KeyValue.of("gen_ai.prompt.name", "review"), KeyValue.of("network.transport", "pipe"));
		McpOperationContext list = new McpOperationContext(this.names.operation("tools/list", "ignored"), "2");
		assertThat(this.convention.getContextualName(list)).isEqualTo("tools/list files");
		assertThat(this.convention.getLowCardinalityKeyValues(list)).containsExactlyInAnyOrder(
				KeyValue.of("server", "files"), KeyValue.of("mcp.method.name", "tools/list"),
				KeyValue.of("network.transport", "pipe"));
	}

	@Test
	void aFailureAddsItsErrorType() {
		McpOperationContext context = new McpOperationContext(this.names.operation("tools/call", "read_file"), "3");
		context.setErrorType(this.names.errorType("-32602"));
		assertThat(this.convention.getLowCardinalityKeyValues(context)).contains(KeyValue.of("error.type", "-32602"))
			.hasSize(5);
	}

	@Test
	void theKeyValuesOfAKindOfRequestAreBuiltOnce() {
		McpOperationContext first = new McpOperationContext(this.names.operation("tools/call", "read_file"), "4");
		McpOperationContext second = new McpOperationContext(this.names.operation("tools/call", "read_file"), "5");
		KeyValues keyValues = this.convention.getLowCardinalityKeyValues(first);
		assertThat(this.convention.getLowCardinalityKeyValues(second)).isSameAs(keyValues);
		assertThat(this.convention.getContextualName(second)).isSameAs(this.convention.getContextualName(first));
		first.setErrorType(this.names.errorType("tool_error"));
		second.setErrorType(this.names.errorType("tool_error"));
		assertThat(this.convention.getLowCardinalityKeyValues(second))
			.isSameAs(this.convention.getLowCardinalityKeyValues(first));
	}

	@Test
	void namesPastTheirBoundsAreFoldedIntoOther() {
		for (int i = 0; i < OperationNames.MAX_TARGETS; i++) {
			assertThat(this.names.operation("tools/call", "tool-" + i).toolName()).isEqualTo("tool-" + i);
		}
		OperationNames.Operation folded = this.names.operation("tools/call", "one-too-many");
		assertThat(folded.toolName()).isEqualTo("_OTHER");
		assertThat(this.names.operation("tools/call", "another")).isSameAs(folded);
		// a name seen before keeps its own
		assertThat(this.names.operation("tools/call", "tool-7").toolName()).isEqualTo("tool-7");
		assertThat(this.names.operation("tools/call", "tool-7")).isSameAs(this.names.operation("tools/call", "tool-7"));
		// prompts have a bound of their own
		assertThat(this.names.operation("prompts/get", "review").promptName()).isEqualTo("review");

		for (int i = 0; i < OperationNames.MAX_METHODS; i++) {
			this.names.operation("made/up-" + i, null);
		}
		assertThat(this.names.operation("made/up-too-many", null).method()).isEqualTo("_OTHER");
		assertThat(this.names.operation(null, null).method()).isEqualTo("_OTHER");

		for (int i = 0; i < OperationNames.MAX_ERROR_TYPES; i++) {
			assertThat(this.names.errorType(Integer.toString(-32000 - i))).isEqualTo(Integer.toString(-32000 - i));
		}
		assertThat(this.names.errorType("-1")).isEqualTo("_OTHER");
		assertThat(this.names.errorType("-32005")).isEqualTo("-32005");
	}

}

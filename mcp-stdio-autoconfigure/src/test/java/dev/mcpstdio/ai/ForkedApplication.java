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

import dev.mcpstdio.autoconfigure.McpStdioAutoConfiguration;
import dev.mcpstdio.autoconfigure.ai.McpStdioAiAutoConfiguration;

import org.springframework.ai.mcp.client.common.autoconfigure.McpClientAutoConfiguration;
import org.springframework.ai.mcp.client.common.autoconfigure.McpToolCallbackAutoConfiguration;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Import;

/**
 * A Spring AI application run in a forked JVM by the tests: its servers come from the
 * command line; Spring AI's timeouts are 2 minutes, so that a failure that waited for one
 * shows.
 *
 * @author mcp-stdio authors
 */
@SpringBootConfiguration
@ImportAutoConfiguration({ McpStdioAutoConfiguration.class, McpStdioAiAutoConfiguration.class,
		McpClientAutoConfiguration.class, McpToolCallbackAutoConfiguration.class })
@Import(AiTestSupport.LongTimeouts.class)
public class ForkedApplication {

	public static void main(String[] args) {
		new SpringApplicationBuilder(ForkedApplication.class).web(WebApplicationType.NONE).run(args);
	}

}

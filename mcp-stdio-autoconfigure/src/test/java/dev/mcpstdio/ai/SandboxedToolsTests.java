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

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.mcpstdio.lifecycle.McpStdioServer;
import dev.mcpstdio.lifecycle.McpStdioServers;
import dev.mcpstdio.test.Fixtures;
import dev.mcpstdio.test.NoProcessLeft;
import dev.mcpstdio.test.Sandboxes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.ai.tool.ToolCallbackProvider;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A server sandboxed by bubblewrap serves Spring AI's tools like any other. Skipped where
 * bubblewrap cannot sandbox (saying why), failed instead where {@value Sandboxes#REQUIRE}
 * is set, as in CI.
 *
 * @author mcp-stdio authors
 */
@ExtendWith(NoProcessLeft.class)
class SandboxedToolsTests {

	private final Fixtures fixtures;

	SandboxedToolsTests(Fixtures fixtures) {
		this.fixtures = fixtures;
	}

	@Test
	void aSandboxedServersToolsAreOfferedAndAnswer() {
		Sandboxes.assume();
		List<String> sandbox = new ArrayList<>(List.of("mcp.stdio.servers.alpha.sandbox.enabled=true"));
		// the home directory is hidden in the sandbox: the class path entries under it
		// (a local Maven repository's jars) are listed, each as it is
		List<Path> readable = Sandboxes.hiddenClassPath();
		for (int i = 0; i < readable.size(); i++) {
			sandbox.add("mcp.stdio.servers.alpha.sandbox.read-only[" + i + "]=" + readable.get(i));
		}
		run(sandbox, AiTestSupport.testServer("alpha", this.fixtures.id()));
		this.fixtures.assertNoneAlive(Duration.ofSeconds(5));
	}

	private void run(List<String> sandbox, List<String> server) {
		AiTestSupport.runner().withPropertyValues(AiTestSupport.properties(server, sandbox)).run((context) -> {
			assertThat(context).hasNotFailed();
			McpStdioServer alpha = context.getBean(McpStdioServers.class).get("alpha");
			assertThat(alpha.definition().spec().sandbox().enabled()).isTrue();
			ToolCallbackProvider provider = OneServerDownTests.provider(context);
			assertThat(OneServerDownTests.toolNames(provider)).contains("echo", "pid");
			assertThat(OneServerDownTests.callEcho(provider, "echo", "from the sandbox")).contains("from the sandbox");
			// in its own pid namespace, the server is bwrap's init's child: pid 2
			String pid = OneServerDownTests.callEcho(provider, "pid", "").replaceAll("[^0-9]", "");
			assertThat(pid).isEqualTo("2").isNotEqualTo(String.valueOf(alpha.pid()));
		});
	}

}

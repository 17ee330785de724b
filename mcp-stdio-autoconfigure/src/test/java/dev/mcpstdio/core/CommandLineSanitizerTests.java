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

package dev.mcpstdio.core;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link CommandLineSanitizer}.
 *
 * @author mcp-stdio authors
 */
class CommandLineSanitizerTests {

	@Test
	void plainArgumentsAreKept() {
		assertThat(
				CommandLineSanitizer.sanitize("npx", List.of("-y", "@modelcontextprotocol/server-filesystem", "/tmp")))
			.isEqualTo("npx -y @modelcontextprotocol/server-filesystem /tmp");
	}

	@Test
	void valueOfSecretLookingNameIsMasked() {
		assertThat(CommandLineSanitizer.sanitize("srv",
				List.of("--token=abc", "--Password=x", "GITHUB_API_KEY=k", "-Dclient.secret=s", "--aws-credentials=c",
						"--mode=fast")))
			.isEqualTo("srv --token=****** --Password=****** GITHUB_API_KEY=****** -Dclient.secret=******"
					+ " --aws-credentials=****** --mode=fast");
	}

	@Test
	void argumentAfterSecretLookingFlagIsMasked() {
		assertThat(CommandLineSanitizer.sanitize("srv", List.of("--api-key", "sk-1", "-p", "8080", "--token")))
			.isEqualTo("srv --api-key ****** -p 8080 --token");
	}

	@Test
	void flagAfterSecretLookingFlagIsNotTakenForItsValue() {
		assertThat(CommandLineSanitizer.sanitize("srv", List.of("--use-keychain", "--verbose")))
			.isEqualTo("srv --use-keychain --verbose");
	}

	@Test
	void dockerStyleEnvironmentArgumentIsMasked() {
		assertThat(CommandLineSanitizer.sanitize("docker", List.of("run", "-e", "GITHUB_TOKEN=ghp_1", "-i", "img")))
			.isEqualTo("docker run -e GITHUB_TOKEN=****** -i img");
	}

	@Test
	void passwordOfUriIsMasked() {
		assertThat(CommandLineSanitizer.sanitize("srv",
				List.of("postgres://bob:pw@db:5432/x", "--url=https://u:p@h/", "https://example.com/a:b@c")))
			.isEqualTo("srv postgres://bob:******@db:5432/x --url=https://u:******@h/ https://example.com/a:b@c");
	}

	@Test
	void longClassPathIsShortened() {
		String classPath = String.join(":", java.util.Collections.nCopies(40, "/root/.m2/repository/some/lib.jar"));
		assertThat(
				CommandLineSanitizer.sanitize("java", List.of("-cp", "/app/classes:" + classPath, "Main", "--token=t")))
			.isEqualTo("java -cp /app/classes:...(41 entries) Main --token=******");
		assertThat(CommandLineSanitizer.sanitize("java", List.of("-cp", "a.jar:b.jar", "Main")))
			.isEqualTo("java -cp a.jar:b.jar Main");
	}

}

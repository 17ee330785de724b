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

package dev.mcpstdio.test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Whether bubblewrap can sandbox here, for the sandbox tests; CI requires it.
 *
 * @author mcp-stdio authors
 */
public final class Sandboxes {

	/** Set (CI sets it) to fail instead of skip where bubblewrap cannot sandbox. */
	public static final String REQUIRE = "MCP_STDIO_REQUIRE_SANDBOX";

	private static volatile @Nullable String problem;

	private Sandboxes() {
	}

	/**
	 * Skip the test where {@code bwrap} is missing or cannot create its namespaces, or
	 * fail it where {@value #REQUIRE} is set.
	 */
	public static synchronized void assume() {
		if (problem == null) {
			problem = probe();
		}
		if (!problem.isEmpty()) {
			String required = System.getenv(REQUIRE);
			if (required != null && !required.isBlank()) {
				fail("bubblewrap is required here (" + REQUIRE + "): " + problem);
			}
			assumeTrue(false, "no sandbox for the sandbox tests: " + problem);
		}
	}

	private static String probe() {
		List<String> command = List.of("bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
				"--unshare-net", "--unshare-pid", "--die-with-parent", "--cap-drop", "ALL", "true");
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			if (!process.waitFor(10, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				return String.join(" ", command) + " did not end within 10s";
			}
			try (InputStream out = process.getInputStream()) {
				String said = new String(out.readNBytes(1000), StandardCharsets.UTF_8).strip();
				return (process.exitValue() == 0) ? "" : String.join(" ", command) + " failed: " + said;
			}
		}
		catch (IOException ex) {
			return "bwrap cannot run: " + ex.getMessage();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "interrupted";
		}
	}

}

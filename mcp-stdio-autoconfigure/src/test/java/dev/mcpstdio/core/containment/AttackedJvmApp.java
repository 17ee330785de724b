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

import java.time.Duration;
import java.util.Map;

import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.server.MessageListener;
import dev.mcpstdio.core.server.ShutdownTimeouts;
import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.test.Fixtures;

/**
 * A JVM for the pid-reuse attack on the orphan guard.
 *
 * @author mcp-stdio authors
 */
public final class AttackedJvmApp {

	/** The servers' stdin-close-timeout and terminate-timeout. */
	static final Duration TIMEOUT = Duration.ofMillis(300);

	private AttackedJvmApp() {
	}

	// Arguments: the test marker, how many servers, the directory of the exit files. It
	// starts servers whose roots exit when a file appears, their children in sessions of
	// their own so that nothing holds the roots' pids once they are reaped
	// (exits-on-file.sh), prints "READY <root pids...> <guard pid>", then waits to be
	// stopped and killed.
	public static void main(String[] args) throws Exception {
		ServerHost host = ServerHost.builder().application("attacked-" + args[0]).build();
		StringBuilder ready = new StringBuilder("READY");
		for (int i = 0; i < Integer.parseInt(args[1]); i++) {
			StdioServerSpec spec = SpecDefaults
				.of("victim-" + i, "sh", Fixtures.script("exits-on-file.sh"), args[2], "0", "detach")
				.withEnv(Map.of(Fixtures.MARKER, args[0]))
				.withShutdown(new ShutdownTimeouts(Duration.ofSeconds(1), TIMEOUT, TIMEOUT));
			StdioServerProcess server = host.start(spec, MessageListener.NONE);
			ready.append(' ').append(server.pid());
		}
		ready.append(' ').append(ContainmentAccess.guardPid("attacked-" + args[0]));
		System.out.println(ready);
		System.out.flush();
		// bounded: a test that forgot this JVM does not leave it for long
		Thread.sleep(Duration.ofMinutes(2).toMillis());
		Runtime.getRuntime().halt(4);
	}

}

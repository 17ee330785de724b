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

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import dev.mcpstdio.autoconfigure.config.SpecDefaults;
import dev.mcpstdio.core.ServerHost;
import dev.mcpstdio.core.server.MessageListener;
import dev.mcpstdio.core.server.ShutdownTimeouts;
import dev.mcpstdio.core.server.StdioServerProcess.StopResult;
import dev.mcpstdio.core.server.StdioServerProcess;
import dev.mcpstdio.core.server.StdioServerSpec;
import dev.mcpstdio.test.Fixtures;

/**
 * A plain Java application for the forked-JVM tests of the orphan guard.
 *
 * @author mcp-stdio authors
 */
public final class OrphanGuardApp {

	private OrphanGuardApp() {
	}

	// Arguments: the test marker, the stdin-close and the terminate timeout in
	// milliseconds, and optionally a script for the guard to run once the JVM is gone (R
	// line). It starts a server that ignores stdin EOF and SIGTERM and has a child and a
	// daemonized grandchild, prints "READY <server pid> <guard pid>", then waits for a
	// command on stdin: "halt" ends the JVM through Runtime.halt, "stop" stops the server
	// and exits normally, "kill-guard" kills the guard's watcher and prints
	// "GUARD <new watcher pid>" once another has replaced it. Otherwise it waits to be
	// killed.
	public static void main(String[] args) throws Exception {
		ShutdownTimeouts timeouts = new ShutdownTimeouts(Duration.ofSeconds(1),
				Duration.ofMillis(Long.parseLong(args[1])), Duration.ofMillis(Long.parseLong(args[2])));
		StdioServerSpec spec = SpecDefaults.of("stubborn", "sh", Fixtures.script("stubborn-family.sh"))
			.withEnv(Map.of(Fixtures.MARKER, args[0]))
			.withShutdown(timeouts);
		ServerHost host = ServerHost.builder().build();
		OrphanGuard guard = host.orphanGuard();
		if (args.length > 3) {
			// a script the guard runs once this JVM is gone
			guard.announce(java.nio.file.Path.of(args[3]));
		}
		StdioServerProcess server = host.start(spec, MessageListener.NONE);
		System.out.println("READY " + server.pid() + " " + ContainmentAccess.guardPid(null));
		System.out.flush();
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		// bounded: a test that forgot this JVM does not leave it for long
		long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
		while (System.nanoTime() < deadline) {
			String line = in.ready() ? in.readLine() : null;
			if ("halt".equals(line)) {
				Runtime.getRuntime().halt(3);
			}
			if ("kill-guard".equals(line)) {
				long old = ContainmentAccess.guardPid(null);
				ProcessHandle.of(old).ifPresent(ProcessHandle::destroyForcibly);
				Long replaced = ContainmentAccess.guardPid(null);
				long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
				while ((replaced == null || replaced == old) && System.nanoTime() < until) {
					Thread.sleep(10);
					replaced = ContainmentAccess.guardPid(null);
				}
				System.out.println("GUARD " + replaced);
				System.out.flush();
			}
			if ("stop".equals(line)) {
				StopResult result = server.stop();
				System.out.println("STOPPED " + result.exit().cause());
				System.out.flush();
				System.exit(0);
			}
			Thread.sleep(20);
		}
		Runtime.getRuntime().halt(4);
	}

}

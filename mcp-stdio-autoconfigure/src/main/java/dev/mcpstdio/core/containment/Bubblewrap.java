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

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.containment.Containment.SandboxSettings.Network;
import dev.mcpstdio.core.containment.Containment.SandboxSettings;
import dev.mcpstdio.core.containment.Containment.Start;
import dev.mcpstdio.core.process.CommandLocator.CommandNotFoundException;
import dev.mcpstdio.core.process.CommandLocator;

/**
 * The bubblewrap sandbox of one start of a server.
 *
 * @param options {@code bwrap} and its options
 * @author mcp-stdio authors
 */
record Bubblewrap(List<String> options) implements Containment.Part {

	// Nothing of its own to end or release: its processes keep the server's session and
	// markers, and --die-with-parent ends them with bwrap.

	// No --new-session: the server keeps the session setsid gave it, which its tree kill
	// and the orphan guard follow; setsid left it no controlling terminal to abuse.
	// Capabilities: bwrap run by root keeps them unless told. no_new_privs: bwrap sets it
	private static final List<String> OPTIONS = List.of("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
			"--unshare-pid", "--die-with-parent", "--cap-drop", "ALL");

	private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(10);

	private static final String NEVER = "; a sandboxed server never runs without its sandbox";

	Bubblewrap {
		options = List.copyOf(options);
	}

	/**
	 * Prepare the sandbox of a start: the {@code bwrap} of its {@code PATH}, probed until
	 * it once sandboxed.
	 * @param start the start
	 * @param probes the {@code bwrap} commands that sandboxed when probed
	 * @return the sandbox
	 * @throws McpStdioException if {@code bwrap} is missing or cannot sandbox here
	 */
	static Bubblewrap of(Start start, Set<List<String>> probes) {
		SandboxSettings sandbox = start.settings().sandbox();
		String failed = "Could not start MCP server '" + start.server() + "': its sandbox ";
		Path bwrap;
		try {
			bwrap = CommandLocator.locate("bwrap", start.env().get("PATH"), null);
		}
		catch (CommandNotFoundException ex) {
			throw new McpStdioException(start.server(),
					failed + "needs bubblewrap, and no directory of the server's PATH holds bwrap: install it "
							+ "(apt-get install bubblewrap, dnf install bubblewrap) or add its directory to the "
							+ "server's PATH" + NEVER);
		}
		List<String> options = new ArrayList<>(List.of(bwrap.toString()));
		options.addAll(OPTIONS);
		if (sandbox.network() == Network.NONE) {
			options.add("--unshare-net");
		}
		// a success is kept; a failure, perhaps a timeout under load, is probed again
		String problem = probes.contains(options) ? "" : probe(options);
		if (!problem.isEmpty()) {
			throw new McpStdioException(start.server(), failed + "cannot be set up here: " + problem
					+ ". bubblewrap needs user namespaces: allow them (on Ubuntu 24.04 an AppArmor profile that lets "
					+ "bwrap use them, or sysctl kernel.apparmor_restrict_unprivileged_userns=0; elsewhere sysctl "
					+ "user.max_user_namespaces above 0, or kernel.unprivileged_userns_clone=1)" + NEVER);
		}
		probes.add(List.copyOf(options));
		mount(options, start, sandbox);
		return new Bubblewrap(options);
	}

	/** Add the mounts and the working directory of a start to its options. */
	private static void mount(List<String> options, Start start, SandboxSettings sandbox) {
		// each mount after those of its ancestors: the most specific path decides
		Map<Path, String> mounts = new TreeMap<>();
		mounts.put(Path.of("/tmp"), "--tmpfs");
		for (String home : new String[] { System.getProperty("user.home"), start.env().get("HOME") }) {
			Path directory = (home != null) ? Path.of(home).toAbsolutePath().normalize() : null;
			if (directory != null && directory.getNameCount() > 0 && Files.isDirectory(directory)) {
				mounts.put(directory, "--tmpfs");
			}
		}
		// a path listed both ways is writable
		Map<Path, String> listed = new LinkedHashMap<>();
		sandbox.readOnly().forEach((readOnly) -> listed.put(readOnly.toAbsolutePath().normalize(), "--ro-bind"));
		sandbox.readWrite().forEach((readWrite) -> listed.put(readWrite.toAbsolutePath().normalize(), "--bind"));
		// the server's or the application's: visible (writable under a listed path), but
		// never /tmp or a home directory itself, which stay empty
		Path directory = ((start.workingDirectory() != null) ? start.workingDirectory()
				: Path.of(System.getProperty("user.dir")))
			.toAbsolutePath()
			.normalize();
		if (listed.keySet().stream().noneMatch(directory::startsWith)) {
			mounts.putIfAbsent(directory, "--ro-bind");
		}
		options.addAll(List.of("--chdir", directory.toString()));
		mounts.putAll(listed);
		mounts.forEach((mounted, how) -> {
			options.add(how);
			options.add(mounted.toString());
			if (!how.equals("--tmpfs")) {
				options.add(mounted.toString());
			}
		});
	}

	/**
	 * Run {@code bwrap} with a sandbox's namespaces once, bounded.
	 * @return why it cannot sandbox, empty when it can
	 */
	private static String probe(List<String> options) {
		List<String> command = new ArrayList<>(options);
		command.addAll(List.of("--", "/bin/sh", "-c", ":"));
		ContainerEngine.Output output = ContainerEngine.run(command, null, PROBE_TIMEOUT);
		if (output.ok()) {
			return "";
		}
		String said = output.stderr().strip();
		return String.join(" ", command) + (output.timedOut() ? " did not end within " + PROBE_TIMEOUT.toSeconds() + "s"
				: " exited with " + output.exitCode() + ": " + said.substring(0, Math.min(said.length(), 1000)));
	}

	@Override
	public List<String> wrap(List<String> command) {
		List<String> wrapped = new ArrayList<>(this.options);
		wrapped.add("--");
		wrapped.addAll(command);
		return wrapped;
	}

}

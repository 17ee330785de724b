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

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.mcpstdio.McpStdioException;
import dev.mcpstdio.core.containment.Containment.SandboxSettings.Network;
import dev.mcpstdio.core.containment.Containment.SandboxSettings;
import dev.mcpstdio.core.containment.Containment.Start;
import dev.mcpstdio.core.tree.CommandLocator.CommandNotFoundException;
import dev.mcpstdio.core.tree.CommandLocator;
import dev.mcpstdio.core.tree.Membership;
import org.jspecify.annotations.Nullable;

/**
 * The bubblewrap sandbox of one start of a server: deny by default (the system's
 * programs, the command's and working directories and the listed paths), its own pid,
 * IPC, UTS and cgroup namespaces (and network for {@code network: none}), a seccomp
 * filter, and, when the application runs as root, an unprivileged user.
 *
 * @param server the server's name
 * @param prefix the command up to and including {@code bwrap} and its options
 * @param view each mount point of the sandbox and whether the host's files under it are
 * seen there
 * @param mounted what runs first in the sandbox, before the server: a check that each
 * listed path mounted is the device and inode checked before {@code bwrap} mounted it,
 * then, when the application runs as root, the change to the unprivileged user (empty
 * where there is neither)
 * @author mcp-stdio authors
 */
record Bubblewrap(String server, List<String> prefix, Map<Path, Boolean> view,
		List<String> mounted) implements Containment.Part {

	// Nothing of its own to end or release: its processes keep the server's session and
	// markers, and --die-with-parent ends them with bwrap; in its pid namespace every
	// process descends from bwrap, whichever user it runs as.

	// No --new-session: the server keeps the session setsid gave it, which its tree kill
	// and the orphan guard follow; setsid left it no controlling terminal to abuse.
	// Capabilities: bwrap run by root keeps them unless told. no_new_privs: bwrap sets it
	private static final List<String> NAMESPACES = List.of("--unshare-pid", "--unshare-ipc", "--unshare-uts",
			"--unshare-cgroup-try", "--die-with-parent", "--cap-drop", "ALL");

	/** The user and group a sandboxed server runs as when the application is root. */
	static final int UNPRIVILEGED = 65534;

	/** The descriptor the seccomp program is read from. */
	private static final String SECCOMP_FD = "9";

	private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(10);

	private static final String NEVER = "; a sandboxed server never runs without its sandbox";

	/** An absolute path in a line of stderr. */
	private static final Pattern PATH = Pattern.compile("/[^\\s:'\"`,;()\\[\\]<>]+");

	Bubblewrap {
		prefix = List.copyOf(prefix);
		view = Map.copyOf(view);
		mounted = List.copyOf(mounted);
	}

	/**
	 * Prepare the sandbox of a start: the {@code bwrap} of its {@code PATH}, probed until
	 * it once sandboxed, its listed paths checked against a swap, its command checked
	 * against what the sandbox hides.
	 * @param start the start
	 * @param probes the {@code bwrap} commands that sandboxed when probed
	 * @param seccomp writes the seccomp program, with or without the Unix socket rule,
	 * and returns its file
	 * @return the sandbox
	 * @throws McpStdioException if {@code bwrap} is missing or cannot sandbox here, a
	 * listed path was swapped, or the command or its interpreter is hidden
	 */
	static Bubblewrap of(Start start, Set<List<String>> probes, SeccompPrograms seccomp) {
		SandboxSettings sandbox = start.settings().sandbox();
		String failed = "Could not start " + McpStdioException.describe(start.server()) + ": its sandbox ";
		List<String> prefix = new ArrayList<>();
		prefix.addAll(List.of("/bin/sh", "-c", "exec " + SECCOMP_FD + "<\"$0\" || exit 126; exec \"$@\""));
		prefix.add(seccomp.file(start.server(), sandbox.network() == Network.NONE).toString());
		Path bwrap = locate(start, "bwrap", failed + "needs bubblewrap, and no directory of the server's PATH holds "
				+ "bwrap: install it (apt-get install bubblewrap, dnf install bubblewrap)");
		List<String> user = List.of();
		prefix.add(bwrap.toString());
		prefix.addAll(NAMESPACES);
		if (Membership.CURRENT_UID == 0) {
			// root's files stay root's: bwrap mounts as root (so a listed path under
			// /root is bound), then, inside, the server becomes a user that owns none;
			// setpriv keeps no capability past its change of user, and no_new_privs
			// holds
			Path setpriv = locate(start, "setpriv", failed + "runs it as uid " + UNPRIVILEGED + " (the application "
					+ "runs as root) through setpriv, and no directory of the server's PATH holds setpriv: install "
					+ "it (apt-get install util-linux, dnf install util-linux-core)");
			prefix.addAll(List.of("--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"));
			user = List.of(setpriv.toString(), "--reuid=" + UNPRIVILEGED, "--regid=" + UNPRIVILEGED, "--clear-groups",
					"--");
		}
		if (sandbox.network() == Network.NONE) {
			prefix.add("--unshare-net");
		}
		prefix.addAll(List.of("--seccomp", SECCOMP_FD));
		SandboxMounts mounts = SandboxMounts.system();
		// a success is kept; a failure, perhaps a timeout under load, is probed again
		List<String> probe = new Bubblewrap(start.server(), prefix, Map.of(), List.of()).wrap(mounts,
				List.of("/bin/sh", "-c", ":"));
		String problem = probes.contains(probe) ? "" : probe(probe);
		if (!problem.isEmpty()) {
			throw new McpStdioException(start.server(), failed + "cannot be set up here: " + problem
					+ ". bubblewrap needs user namespaces: allow them (on Ubuntu 24.04 an AppArmor profile that lets "
					+ "bwrap use them, or sysctl kernel.apparmor_restrict_unprivileged_userns=0; elsewhere sysctl "
					+ "user.max_user_namespaces above 0, or kernel.unprivileged_userns_clone=1)" + NEVER);
		}
		probes.add(probe);
		List<String> swapped = ListedPaths.swapped(sandbox);
		if (!swapped.isEmpty()) {
			throw new McpStdioException(start.server(), failed + "refused to start it: " + String.join("; ", swapped)
					+ ". Put back what was listed (a process that swapped it tried to reach what the server was not "
					+ "given), or restart the application to resolve the path anew" + NEVER);
		}
		Path directory = mounts.add(start, sandbox);
		Bubblewrap bubblewrap = new Bubblewrap(start.server(), prefix, mounts.view(), List.of());
		bubblewrap.checkCommand(start);
		List<String> options = new ArrayList<>(prefix);
		options.addAll(mounts.options(directory));
		// the check of the listed paths runs before the change of user: it reads the
		// mounts as the application would
		List<String> inside = new ArrayList<>(ListedPaths.mounted(sandbox));
		inside.addAll(user);
		return new Bubblewrap(start.server(), options, bubblewrap.view(), inside);
	}

	private static Path locate(Start start, String command, String missing) {
		try {
			return CommandLocator.locate(command, start.env().get("PATH"), null);
		}
		catch (CommandNotFoundException ex) {
			throw new McpStdioException(start.server(), missing + " or add its directory to the server's PATH" + NEVER);
		}
	}

	/** A command in a sandbox with the given mounts, in its root directory. */
	private List<String> wrap(SandboxMounts mounts, List<String> command) {
		List<String> wrapped = new ArrayList<>(this.prefix);
		wrapped.addAll(mounts.options(Path.of("/")));
		wrapped.add("--");
		wrapped.addAll(command);
		return wrapped;
	}

	/**
	 * Fail naming the directory to list where a script's interpreter is one the sandbox
	 * hides.
	 */
	private void checkCommand(Start start) {
		Path command = Path.of(start.command().get(0));
		List<String> interpreter = interpreter(command);
		if (interpreter.isEmpty()) {
			return;
		}
		Path program = Path.of(interpreter.get(0));
		if (!program.isAbsolute()) {
			return;
		}
		if (Files.exists(program) && !SandboxMounts.visible(this.view, SandboxMounts.real(program))) {
			throw hidden(command + "'s interpreter " + program, SandboxMounts.real(program).getParent());
		}
		// #!/usr/bin/env name: the first of the PATH that the sandbox shows
		String path = start.env().get("PATH");
		if (program.getFileName().toString().equals("env") && interpreter.size() > 1 && path != null) {
			String name = interpreter.get(1);
			Path hidden = null;
			for (String entry : path.split(":")) {
				Path candidate = entry.isEmpty() ? null : Path.of(entry).resolve(name);
				if (candidate != null && candidate.isAbsolute() && Files.isExecutable(candidate)) {
					if (SandboxMounts.visible(this.view, SandboxMounts.real(candidate))) {
						return;
					}
					hidden = (hidden != null) ? hidden : candidate;
				}
			}
			if (hidden != null) {
				throw hidden(command + "'s interpreter " + name + " (" + hidden + ")", hidden.getParent());
			}
		}
	}

	private McpStdioException hidden(String what, Path directory) {
		return new McpStdioException(this.server, "Could not start " + McpStdioException.describe(this.server) + ": "
				+ what + " lies in " + directory + ", which the sandbox hides: " + list(directory));
	}

	private String list(Path directory) {
		return "list it in mcp.stdio.servers." + this.server + ".sandbox.read-only" + ((Membership.CURRENT_UID == 0)
				? " (readable by uid " + UNPRIVILEGED + ", which the server runs as)" : "");
	}

	/**
	 * The interpreter and its argument of a {@code #!} script, empty for another file.
	 */
	private static List<String> interpreter(Path command) {
		try (InputStream in = Files.newInputStream(command)) {
			String first = new String(in.readNBytes(256), StandardCharsets.ISO_8859_1);
			if (!first.startsWith("#!")) {
				return List.of();
			}
			int end = first.indexOf('\n');
			String line = first.substring(2, (end >= 0) ? end : first.length()).strip();
			List<String> words = line.isEmpty() ? List.of() : List.of(line.split("\\s+"));
			return words.subList(0, Math.min(2, words.size()));
		}
		catch (IOException ex) {
			return List.of();
		}
	}

	/**
	 * Return the hint of an exit at start-up whose stderr names a path of the host that
	 * the sandbox hides.
	 * @param stderrTail the server's last stderr lines
	 * @return the hint, {@code null} when none applies
	 */
	@Override
	public @Nullable String hint(List<String> stderrTail) {
		for (String line : stderrTail) {
			Matcher matcher = PATH.matcher(line);
			while (matcher.find()) {
				Path path = Path.of(matcher.group());
				if (path.normalize().equals(path) && Files.exists(path)
						&& !SandboxMounts.visible(this.view, SandboxMounts.real(path))) {
					Path directory = Files.isDirectory(path) ? SandboxMounts.real(path)
							: SandboxMounts.real(path).getParent();
					return "Hint: the server's stderr names " + path + ", which the sandbox hides: "
							+ list(directory).replace("list it", "list " + directory);
				}
			}
		}
		return null;
	}

	/**
	 * Run {@code bwrap} with a sandbox's namespaces once, bounded.
	 * @return why it cannot sandbox, empty when it can
	 */
	private static String probe(List<String> command) {
		CommandOutput output = BoundedCommand.run(command, null, PROBE_TIMEOUT);
		if (output.ok()) {
			return "";
		}
		String said = output.stderr().strip();
		return String.join(" ", command) + (output.timedOut() ? " did not end within " + PROBE_TIMEOUT.toSeconds() + "s"
				: " exited with " + output.exitCode() + ": " + said.substring(0, Math.min(said.length(), 1000)));
	}

	@Override
	public List<String> wrap(List<String> command) {
		List<String> wrapped = new ArrayList<>(this.prefix);
		wrapped.add("--");
		wrapped.addAll(this.mounted);
		wrapped.addAll(command);
		return wrapped;
	}

}

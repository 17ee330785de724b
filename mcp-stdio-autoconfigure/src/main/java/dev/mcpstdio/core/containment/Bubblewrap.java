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
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

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

	/** What running programs needs, where it exists (links kept as links). */
	private static final List<String> SYSTEM = List.of("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
			"/etc");

	/** Secrets of /etc that stay hidden whoever the server runs as. */
	private static final List<String> MASKED = List.of("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-",
			"/etc/ssl/private");

	/** The descriptor the seccomp program is read from. */
	private static final String SECCOMP_FD = "9";

	private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(10);

	private static final String NEVER = "; a sandboxed server never runs without its sandbox";

	/** An absolute path in a line of stderr. */
	private static final Pattern PATH = Pattern.compile("/[^\\s:'\"`,;()\\[\\]<>]+");

	/**
	 * Run in the sandbox as {@code sh -c CHECK name stat path dev:ino ... -- command}: a
	 * listed path swapped between its check and its mount fails the start before the
	 * server runs.
	 */
	private static final String CHECK = "s=$1; shift; while [ \"$1\" != -- ]; do "
			+ "got=$(\"$s\" -c %d:%i -- \"$1\" 2>/dev/null); [ \"$got\" = \"$2\" ] || { "
			+ "echo \"mcp-stdio: the sandbox mounted another $1 than the listed path checked before (device:inode "
			+ "$2, mounted ${got:-none}): it was swapped in between\" >&2; exit 125; }; shift 2; done; shift; "
			+ "exec \"$@\"";

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
		Map<Path, Mount> mounts = system();
		// a success is kept; a failure, perhaps a timeout under load, is probed again
		List<String> probe = new Bubblewrap(start.server(), prefix, Map.of(), List.of()).wrap(mounts, null,
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
		Path directory = mount(mounts, start, sandbox);
		Bubblewrap bubblewrap = new Bubblewrap(start.server(), prefix, view(mounts), List.of());
		bubblewrap.checkCommand(start);
		List<String> options = new ArrayList<>(prefix);
		options.addAll(bubblewrap.options(mounts, directory));
		// the check of the listed paths runs before the change of user: it reads the
		// mounts as the application would
		List<String> inside = new ArrayList<>(mounted(sandbox));
		inside.addAll(user);
		return new Bubblewrap(start.server(), options, bubblewrap.view(), inside);
	}

	/** The check of the listed paths after their mount, none without {@code stat}. */
	static List<String> mounted(SandboxSettings sandbox) {
		Path stat = Stream.of("/usr/bin/stat", "/bin/stat")
			.map(Path::of)
			.filter(Files::isExecutable)
			.findFirst()
			.orElse(null);
		if (stat == null || sandbox.identities().isEmpty()) {
			return List.of();
		}
		List<String> check = new ArrayList<>(List.of("/bin/sh", "-c", CHECK, "mcp-stdio-sandbox", stat.toString()));
		sandbox.identities().forEach((path, identity) -> check.addAll(List.of(path.toString(), identity)));
		check.add("--");
		return check;
	}

	private static Path locate(Start start, String command, String missing) {
		try {
			return CommandLocator.locate(command, start.env().get("PATH"), null);
		}
		catch (CommandNotFoundException ex) {
			throw new McpStdioException(start.server(), missing + " or add its directory to the server's PATH" + NEVER);
		}
	}

	/** The system's directories, read-only, and the masks over its secrets. */
	private static Map<Path, Mount> system() {
		// each mount after those of its ancestors: the most specific path decides
		Map<Path, Mount> mounts = new TreeMap<>();
		for (String name : SYSTEM) {
			Path path = Path.of(name);
			if (Files.isSymbolicLink(path)) {
				try {
					mounts.put(path, new Mount("--symlink", Files.readSymbolicLink(path).toString(), null));
				}
				catch (IOException ex) {
					// gone since: not there
				}
			}
			else if (Files.isDirectory(path)) {
				mounts.put(path, Mount.READ_ONLY);
			}
		}
		List<Path> masked = new ArrayList<>(MASKED.stream().map(Path::of).toList());
		try (DirectoryStream<Path> keys = Files.newDirectoryStream(Path.of("/etc/ssh"), "*_key")) {
			keys.forEach(masked::add);
		}
		catch (IOException ex) {
			// no ssh server here
		}
		for (Path path : masked) {
			if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
				mounts.put(path, Mount.HIDDEN);
			}
			else if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
				mounts.put(path, Mount.MASKED);
			}
		}
		return mounts;
	}

	/**
	 * Add the mounts of a start: its private {@code /tmp} and empty homes, its command's
	 * directory, its working directory, its listed paths.
	 * @return the working directory
	 */
	private static Path mount(Map<Path, Mount> mounts, Start start, SandboxSettings sandbox) {
		Map<Path, Mount> empty = new LinkedHashMap<>();
		empty.put(Path.of("/"), Mount.HIDDEN);
		empty.put(Path.of("/tmp"), Mount.SCRATCH);
		for (String home : new String[] { System.getProperty("user.home"), start.env().get("HOME") }) {
			if (home != null && Path.of(home).isAbsolute()) {
				empty.put(real(Path.of(home)), Mount.SCRATCH);
			}
		}
		empty.forEach((path, mount) -> {
			if (path.getNameCount() > 0) {
				mounts.put(path, mount);
			}
		});
		// the command's directory, or the command alone where that would show a home
		Path command = Path.of(start.command().get(0)).toAbsolutePath().normalize();
		for (Path file : new Path[] { command, real(command) }) {
			Path parent = file.getParent();
			Path shown = (parent == null || empty.containsKey(parent)) ? file : parent;
			if (!visible(view(mounts), shown)) {
				mounts.put(shown, Mount.READ_ONLY);
			}
		}
		// a path listed both ways is writable
		Map<Path, Mount> listed = new LinkedHashMap<>();
		sandbox.readOnly().forEach((path) -> listed.put(path, Mount.READ_ONLY));
		sandbox.readWrite().forEach((path) -> listed.put(path, Mount.READ_WRITE));
		// the server's or the application's: visible (writable under a listed path), but
		// never /tmp or a home directory itself, which stay empty
		Path directory = real((start.workingDirectory() != null) ? start.workingDirectory()
				: Path.of(System.getProperty("user.dir")));
		if (listed.keySet().stream().noneMatch(directory::startsWith) && !empty.containsKey(directory)) {
			mounts.put(directory, Mount.READ_ONLY);
		}
		mounts.putAll(listed);
		return directory;
	}

	private List<String> options(Map<Path, Mount> mounts, Path directory) {
		// every directory on the way to a mount can be entered by the server, whatever
		// its mode on the host (bwrap would copy /root's 0700)
		Map<Path, Mount> all = new TreeMap<>(mounts);
		mounts.keySet().forEach((path) -> {
			for (Path parent = path.getParent(); parent != null
					&& parent.getNameCount() > 0; parent = parent.getParent()) {
				all.putIfAbsent(parent, Mount.PASSAGE);
			}
		});
		List<String> options = new ArrayList<>(List.of("--dev", "/dev", "--proc", "/proc"));
		all.forEach((path, mount) -> {
			if (mount.perms() != null) {
				options.addAll(List.of("--perms", mount.perms()));
			}
			options.add(mount.option());
			if (mount.source() != null) {
				options.add(mount.source().isEmpty() ? path.toString() : mount.source());
			}
			options.add(path.toString());
		});
		// the root tmpfs, where bwrap made the mount points, is read-only too
		options.addAll(List.of("--remount-ro", "/", "--chdir", directory.toString()));
		return options;
	}

	/** The command of a start: its sandbox's mounts, the given ones if any. */
	private List<String> wrap(Map<Path, Mount> mounts, @Nullable Path directory, List<String> command) {
		List<String> wrapped = new ArrayList<>(this.prefix);
		wrapped.addAll(options(mounts, (directory != null) ? directory : Path.of("/")));
		wrapped.add("--");
		wrapped.addAll(command);
		return wrapped;
	}

	private static Map<Path, Boolean> view(Map<Path, Mount> mounts) {
		Map<Path, Boolean> view = new TreeMap<>();
		mounts.forEach((path, mount) -> {
			if (!mount.option().equals("--symlink")) {
				view.put(path, mount.shows());
			}
		});
		return view;
	}

	/** Whether the host's path (its real path) is seen in a sandbox of this view. */
	private static boolean visible(Map<Path, Boolean> view, Path path) {
		Path decided = null;
		for (Path mount : view.keySet()) {
			if (path.startsWith(mount) && (decided == null || mount.getNameCount() > decided.getNameCount())) {
				decided = mount;
			}
		}
		return decided != null && view.get(decided);
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
		if (Files.exists(program) && !visible(this.view, real(program))) {
			throw hidden(command + "'s interpreter " + program, real(program).getParent());
		}
		// #!/usr/bin/env name: the first of the PATH that the sandbox shows
		String path = start.env().get("PATH");
		if (program.getFileName().toString().equals("env") && interpreter.size() > 1 && path != null) {
			String name = interpreter.get(1);
			Path hidden = null;
			for (String entry : path.split(":")) {
				Path candidate = entry.isEmpty() ? null : Path.of(entry).resolve(name);
				if (candidate != null && candidate.isAbsolute() && Files.isExecutable(candidate)) {
					if (visible(this.view, real(candidate))) {
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
				if (path.normalize().equals(path) && Files.exists(path) && !visible(this.view, real(path))) {
					Path directory = Files.isDirectory(path) ? real(path) : real(path).getParent();
					return "Hint: the server's stderr names " + path + ", which the sandbox hides: "
							+ list(directory).replace("list it", "list " + directory);
				}
			}
		}
		return null;
	}

	private static Path real(Path path) {
		Path absolute = path.toAbsolutePath().normalize();
		try {
			return absolute.toRealPath();
		}
		catch (IOException ex) {
			return absolute;
		}
	}

	/**
	 * Run {@code bwrap} with a sandbox's namespaces once, bounded.
	 * @return why it cannot sandbox, empty when it can
	 */
	private static String probe(List<String> command) {
		CommandOutput output = ContainerEngine.run(command, null, PROBE_TIMEOUT);
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

	/**
	 * One mount of the sandbox.
	 *
	 * @param option its bwrap option
	 * @param source its source: empty for the path itself, {@code null} for none
	 * @param perms the mode bwrap gives what it makes, {@code null} for its default
	 */
	private record Mount(String option, @Nullable String source, @Nullable String perms) {

		static final Mount READ_ONLY = new Mount("--ro-bind", "", null);

		static final Mount READ_WRITE = new Mount("--bind", "", null);

		/** An empty tmpfs over what is there. */
		static final Mount HIDDEN = new Mount("--tmpfs", null, null);

		/**
		 * An empty tmpfs over what is there that the server may write: made by root, it
		 * would be root's alone.
		 */
		static final Mount SCRATCH = new Mount("--tmpfs", null, "1777");

		/**
		 * An empty directory that the server may enter, made to reach a mount below it.
		 */
		static final Mount PASSAGE = new Mount("--dir", null, "0755");

		/** An empty file over what is there. */
		static final Mount MASKED = new Mount("--ro-bind", "/dev/null", null);

		boolean shows() {
			return "".equals(this.source);
		}

	}

}

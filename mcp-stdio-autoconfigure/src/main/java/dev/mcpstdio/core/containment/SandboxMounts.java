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
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.mcpstdio.core.containment.Containment.SandboxSettings;
import dev.mcpstdio.core.containment.Containment.Start;
import org.jspecify.annotations.Nullable;

/**
 * The mounts of a bubblewrap sandbox, deny by default: the system's programs read-only
 * with its secrets masked, an empty {@code /tmp} and homes, the command's and working
 * directories and the listed paths.
 *
 * @author mcp-stdio authors
 */
final class SandboxMounts {

	/** What running programs needs, where it exists (links kept as links). */
	private static final List<String> SYSTEM = List.of("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
			"/etc");

	/** Secrets of /etc that stay hidden whoever the server runs as. */
	private static final List<String> MASKED = List.of("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-",
			"/etc/ssl/private");

	/** Each mount point and its mount, each after those of its ancestors. */
	private final Map<Path, Mount> mounts;

	private SandboxMounts(Map<Path, Mount> mounts) {
		this.mounts = mounts;
	}

	/**
	 * Return the mounts of the system's directories, read-only, and the masks over its
	 * secrets.
	 * @return the mounts every sandbox starts from
	 */
	static SandboxMounts system() {
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
		return new SandboxMounts(mounts);
	}

	/**
	 * Add the mounts of a start: its private {@code /tmp} and empty homes, its command's
	 * directory, its working directory, its listed paths.
	 * @param start the start
	 * @param sandbox its settings
	 * @return the working directory
	 */
	Path add(Start start, SandboxSettings sandbox) {
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
				this.mounts.put(path, mount);
			}
		});
		// the command's directory, or the command alone where that would show a home
		Path command = Path.of(start.command().get(0)).toAbsolutePath().normalize();
		for (Path file : new Path[] { command, real(command) }) {
			Path parent = file.getParent();
			Path shown = (parent == null || empty.containsKey(parent)) ? file : parent;
			if (!visible(view(), shown)) {
				this.mounts.put(shown, Mount.READ_ONLY);
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
			this.mounts.put(directory, Mount.READ_ONLY);
		}
		this.mounts.putAll(listed);
		return directory;
	}

	/**
	 * Return the options of {@code bwrap} that make these mounts.
	 * @param directory the working directory of the server
	 * @return the options
	 */
	List<String> options(Path directory) {
		// every directory on the way to a mount can be entered by the server, whatever
		// its mode on the host (bwrap would copy /root's 0700)
		Map<Path, Mount> all = new TreeMap<>(this.mounts);
		this.mounts.keySet().forEach((path) -> {
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

	/**
	 * Return each mount point and whether the host's files under it are seen there.
	 * @return the view
	 */
	Map<Path, Boolean> view() {
		Map<Path, Boolean> view = new TreeMap<>();
		this.mounts.forEach((path, mount) -> {
			if (!mount.option().equals("--symlink")) {
				view.put(path, mount.shows());
			}
		});
		return view;
	}

	/** Whether the host's path (its real path) is seen in a sandbox of this view. */
	static boolean visible(Map<Path, Boolean> view, Path path) {
		Path decided = null;
		for (Path mount : view.keySet()) {
			if (path.startsWith(mount) && (decided == null || mount.getNameCount() > decided.getNameCount())) {
				decided = mount;
			}
		}
		return decided != null && view.get(decided);
	}

	/**
	 * Return the real path of a path of the host, or the path made absolute where it
	 * cannot be resolved.
	 * @param path the path
	 * @return its real path
	 */
	static Path real(Path path) {
		Path absolute = path.toAbsolutePath().normalize();
		try {
			return absolute.toRealPath();
		}
		catch (IOException ex) {
			return absolute;
		}
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

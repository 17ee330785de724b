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
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * The paths a sandbox lists ({@code read-write}, {@code read-only}): resolved once, when
 * the settings are made, and checked at every start against a swap.
 *
 * @author mcp-stdio authors
 */
final class ListedPaths {

	/**
	 * The first resolution of each listed path that existed, by the path as listed: a
	 * reload resolves it the same, so that a swap made since fails its start instead of
	 * becoming what the reload binds.
	 */
	private static final Map<Path, Resolved> FIRST = new ConcurrentHashMap<>();

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

	private ListedPaths() {
	}

	/**
	 * Return the real paths of the given ones (symbolic links followed), each left as
	 * given where it cannot be resolved: its start fails saying so.
	 * @param enabled whether the sandbox is on; off, nothing is resolved
	 * @param paths the paths
	 * @return the resolved paths
	 */
	static List<Path> resolve(boolean enabled, List<Path> paths) {
		return paths.stream().map((path) -> enabled ? first(path).real() : path).toList();
	}

	/**
	 * Return the identity ({@code dev:ino}) of each path that resolves, by its real path.
	 * @param enabled whether the sandbox is on; off, none
	 * @param readWrite the writable paths
	 * @param readOnly the readable paths
	 * @return the identities
	 */
	static Map<Path, String> identify(boolean enabled, List<Path> readWrite, List<Path> readOnly) {
		Map<Path, String> identities = new LinkedHashMap<>();
		if (enabled) {
			Stream.concat(readWrite.stream(), readOnly.stream()).map(ListedPaths::first).forEach((resolved) -> {
				if (resolved.identity() != null) {
					identities.put(resolved.real(), resolved.identity());
				}
			});
		}
		return identities;
	}

	/**
	 * Check that each listed path is still what it was resolved to: every component a
	 * directory or file, not a symbolic link, and the path the same device and inode.
	 * @param settings the sandbox settings
	 * @return the problem of each path that is not, naming it and saying why; empty when
	 * all hold
	 */
	static List<String> swapped(Containment.SandboxSettings settings) {
		List<String> problems = new ArrayList<>();
		Stream.concat(settings.readWrite().stream(), settings.readOnly().stream()).distinct().forEach((path) -> {
			String problem = swapped(path, settings.identities().get(path));
			if (problem != null) {
				problems.add(problem);
			}
		});
		return problems;
	}

	private static @Nullable String swapped(Path path, @Nullable String expected) {
		if (expected == null) {
			return "the listed path " + path + " did not exist when the settings were made";
		}
		Path walked = path.getRoot();
		for (Path name : path) {
			walked = walked.resolve(name);
			if (Files.isSymbolicLink(walked)) {
				return "the listed path " + path + " has a symbolic link now: " + walked
						+ " (a process that may write its parent swapped it)";
			}
		}
		String identity = identity(path);
		if (identity == null) {
			return "the listed path " + path + " no longer exists";
		}
		if (!identity.equals(expected)) {
			return "the listed path " + path + " is no longer the one first resolved (device:inode " + expected
					+ ", now " + identity + "; a path replaced on purpose is resolved anew when the application "
					+ "restarts)";
		}
		return null;
	}

	/** The check of the listed paths after their mount, none without {@code stat}. */
	static List<String> mounted(Containment.SandboxSettings sandbox) {
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

	/** The first resolution of a listed path in this JVM, made now if it exists. */
	private static Resolved first(Path path) {
		Path absolute = path.toAbsolutePath().normalize();
		Resolved first = FIRST.get(absolute);
		if (first != null) {
			return first;
		}
		try {
			Path real = absolute.toRealPath();
			String identity = identity(real);
			return (identity != null) ? FIRST.computeIfAbsent(absolute, (listed) -> new Resolved(real, identity))
					: new Resolved(absolute, null);
		}
		catch (IOException ex) {
			return new Resolved(absolute, null);
		}
	}

	/**
	 * A listed path as first resolved.
	 *
	 * @param real its real path
	 * @param identity its {@code dev:ino}, {@code null} when it could not be read
	 */
	private record Resolved(Path real, @Nullable String identity) {

	}

	/** The device and inode of a path itself, {@code null} when it cannot be read. */
	static @Nullable String identity(Path path) {
		try {
			Map<String, Object> attributes = Files.readAttributes(path, "unix:dev,ino", LinkOption.NOFOLLOW_LINKS);
			return attributes.get("dev") + ":" + attributes.get("ino");
		}
		catch (IOException | UnsupportedOperationException | IllegalArgumentException ex) {
			return null;
		}
	}

}

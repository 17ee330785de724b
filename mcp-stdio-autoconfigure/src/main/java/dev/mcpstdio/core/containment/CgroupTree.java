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
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A cgroup (v2) and its descendant groups as their files show them: the processes in
 * them, and their removal.
 *
 * @author mcp-stdio authors
 */
final class CgroupTree {

	private CgroupTree() {
	}

	/**
	 * Return the pids of every process in a group and its descendant groups.
	 * @param group the group
	 * @return the pids, empty once the group is empty or gone
	 */
	static List<Long> pids(Path group) {
		Set<Long> pids = new LinkedHashSet<>();
		collect(group, pids, 0);
		return new ArrayList<>(pids);
	}

	private static void collect(Path group, Set<Long> pids, int depth) {
		try {
			for (String line : Files.readAllLines(group.resolve("cgroup.procs"), StandardCharsets.US_ASCII)) {
				if (!line.isBlank()) {
					pids.add(Long.parseLong(line.strip()));
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			return;
		}
		if (depth <= 32) {
			for (Path child : children(group)) {
				collect(child, pids, depth + 1);
			}
		}
	}

	private static List<Path> children(Path group) {
		List<Path> children = new ArrayList<>();
		// A group without descendants (the usual case) needs no listing: every entry of
		// its directory would be looked at to tell the groups from the kernel's files
		if (!hasDescendants(group)) {
			return children;
		}
		try (DirectoryStream<Path> entries = Files.newDirectoryStream(group, Files::isDirectory)) {
			entries.forEach(children::add);
		}
		catch (IOException | RuntimeException ex) {
			// gone
		}
		return children;
	}

	private static boolean hasDescendants(Path group) {
		try {
			for (String line : Files.readAllLines(group.resolve("cgroup.stat"), StandardCharsets.US_ASCII)) {
				if (line.startsWith("nr_descendants ")) {
					return Long.parseLong(line.substring("nr_descendants ".length()).strip()) > 0;
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			// unknown: look
		}
		return true;
	}

	/**
	 * Remove a group and its descendant groups, each once empty.
	 * @param group the group
	 */
	static void remove(Path group) {
		for (Path child : children(group)) {
			remove(child);
		}
		Cgroups.removeQuietly(group);
	}

}

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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.mcpstdio.core.tree.ProcessMarkers;
import dev.mcpstdio.core.tree.ProcReader;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The cgroup (v2) containment of this JVM's servers, where it may write the hierarchy.
 *
 * @param base this JVM's own cgroup, where the groups of JVMs are
 * @param jvmGroup {@code <base>/mcp-stdio-<pid>-<start>}, the parent of every server
 * group
 * @param hasKill whether {@code cgroup.kill} exists
 * @param description which containment is in use, for one line at start-up
 * @author mcp-stdio authors
 */
record Cgroups(@Nullable Path base, @Nullable Path jvmGroup, boolean hasKill, String description) {

	private static final Log logger = LogFactory.getLog(Cgroups.class);

	/** The name of every JVM group starts with this, followed by its owner. */
	static final String GROUP_PREFIX = "mcp-stdio-";

	/**
	 * Guards this JVM's group, which every host of the JVM shares: no probe, creation or
	 * removal of it runs beside another.
	 */
	static final Object JVM_GROUP_LOCK = new Object();

	private static final String REAPER = ReaperScripts.resource("reap-cgroup.sh");

	private static final Pattern OCTAL_ESCAPE = Pattern.compile("\\\\([0-7]{3})");

	/**
	 * Probe which containment this JVM can use: a group of its own under its cgroup,
	 * where cgroup v2 is mounted and writable.
	 * @param proc the reader of {@code /proc}
	 * @return the containment, possibly none
	 */
	static Cgroups detect(ProcReader proc) {
		synchronized (JVM_GROUP_LOCK) {
			return detect(proc.path("self/mountinfo"), proc.path("self/cgroup"), ProcessMarkers.Owner.current());
		}
	}

	/**
	 * Return a containment that is off.
	 * @param why the reason, for {@link #description()}
	 * @return no containment
	 */
	static Cgroups none(String why) {
		return new Cgroups(null, null, false,
				"none (" + why + "); servers are followed by process tree, session and markers");
	}

	static Cgroups detect(Path mountinfo, Path ownCgroup, ProcessMarkers.Owner owner) {
		if (!Files.isReadable(mountinfo) || !Files.isReadable(ownCgroup)) {
			return none("no /proc: not Linux");
		}
		Path own;
		try {
			String[] v2 = cgroup2Mount(Files.readAllLines(mountinfo, StandardCharsets.UTF_8));
			if (v2 == null) {
				return none("cgroup v2 is not mounted");
			}
			String path = ownPath(Files.readAllLines(ownCgroup, StandardCharsets.UTF_8));
			if (path == null) {
				return none("this process is in no cgroup v2 group");
			}
			String root = v2[0];
			if (!root.equals("/") && (path.equals(root) || path.startsWith(root + "/"))) {
				path = path.substring(root.length());
			}
			own = Path.of(v2[1]).resolve(path.replaceFirst("^/+", ""));
		}
		catch (IOException | RuntimeException ex) {
			return none("cannot read the cgroup of this process: " + ex.getMessage());
		}
		if (!Files.isDirectory(own)) {
			return none("the cgroup of this process is not visible at " + own);
		}
		Path jvmGroup = own.resolve(GROUP_PREFIX + owner.pid() + "-" + owner.start());
		String problem = probe(jvmGroup);
		if (problem != null) {
			return none("cannot use cgroup v2 at " + own + ": " + problem);
		}
		boolean hasKill = Files.exists(jvmGroup.resolve("cgroup.kill"));
		removeQuietly(jvmGroup);
		return new Cgroups(own, jvmGroup, hasKill,
				"cgroup v2: each server in its own group under " + jvmGroup + ", ended " + (hasKill ? "with cgroup.kill"
						: "by signalling every process in it (no cgroup.kill before Linux 5.14)"));
	}

	/**
	 * Return the root and mount point of the cgroup v2 hierarchy.
	 * @param mountinfo the lines of {@code /proc/self/mountinfo}
	 * @return {root, mount point}, or {@code null}
	 */
	static String @Nullable [] cgroup2Mount(List<String> mountinfo) {
		for (String line : mountinfo) {
			int separator = line.indexOf(" - ");
			if (separator < 0) {
				continue;
			}
			String[] after = line.substring(separator + 3).split(" ");
			String[] before = line.substring(0, separator).split(" ");
			if (after.length > 0 && after[0].equals("cgroup2") && before.length > 4) {
				return new String[] { unescape(before[3]), unescape(before[4]) };
			}
		}
		return null;
	}

	/** mountinfo escapes space, tab, newline and backslash as octal. */
	private static String unescape(String field) {
		return OCTAL_ESCAPE.matcher(field)
			.replaceAll(
					(escape) -> Matcher.quoteReplacement(String.valueOf((char) Integer.parseInt(escape.group(1), 8))));
	}

	/** The path of the {@code 0::} line of {@code /proc/self/cgroup}. */
	static @Nullable String ownPath(List<String> lines) {
		for (String line : lines) {
			if (line.startsWith("0::")) {
				String path = line.substring(3).strip();
				// a group that was removed under us
				return path.endsWith(" (deleted)") ? null : path;
			}
		}
		return null;
	}

	/**
	 * Create the JVM group and a child, and move a shell into the child the way servers
	 * will join theirs.
	 * @return what went wrong, or {@code null}
	 */
	private static @Nullable String probe(Path jvmGroup) {
		Path child = jvmGroup.resolve("probe");
		try {
			Files.createDirectories(child);
		}
		catch (IOException | RuntimeException ex) {
			removeQuietly(jvmGroup);
			return "cannot create a group (" + ex.getMessage() + ")";
		}
		Cgroup probe = new Cgroup("probe", child, false);
		try {
			CommandOutput output = BoundedCommand.run(probe.wrap(List.of("/bin/sh", "-c", "exit 0")), null,
					Duration.ofSeconds(5));
			if (output.timedOut()) {
				return "joining a group took longer than 5s";
			}
			return output.ok() ? null : "a process cannot join a group (" + output.error() + ")";
		}
		finally {
			probe.awaitEmptyAndRemove();
		}
	}

	/**
	 * Create the group of one server start.
	 * @param server the server's name
	 * @param instance the id of the start, which names the group
	 * @return the group, or {@code null} without containment or when it cannot be created
	 * (the server then runs uncontained)
	 */
	@Nullable Cgroup create(String server, String instance) {
		if (this.jvmGroup == null) {
			return null;
		}
		if (!instance.matches("[A-Za-z0-9_@-]+")) {
			throw new IllegalArgumentException("Not a group name: " + instance);
		}
		synchronized (JVM_GROUP_LOCK) {
			try {
				return new Cgroup(server, Files.createDirectories(this.jvmGroup.resolve(instance)), this.hasKill);
			}
			catch (IOException | RuntimeException ex) {
				logger.warn("Could not create the cgroup of MCP server start " + instance + " under " + this.jvmGroup
						+ "; it runs uncontained: " + ex.getMessage());
				return null;
			}
		}
	}

	static void removeQuietly(Path group) {
		try {
			Files.deleteIfExists(group);
		}
		catch (IOException | RuntimeException ex) {
			// still in use, or gone
		}
	}

	/**
	 * Return the script that the orphan guard runs once this JVM is gone.
	 * @return the script, or {@code null} without containment
	 */
	@Nullable String reaper() {
		return (this.jvmGroup != null) ? reaper(this.jvmGroup, this.hasKill) : null;
	}

	/**
	 * Return the script that the orphan guard runs once a JVM is gone: it waits for the
	 * JVM's group to empty, then ends every process left in it and removes it.
	 * @param group the JVM's group
	 * @param hasKill whether {@code cgroup.kill} exists
	 * @return the script
	 */
	static String reaper(Path group, boolean hasKill) {
		return "# mcp-stdio: ends every process in the cgroup of a JVM that is gone; run by its orphan guard\n" + "g="
				+ ReaperScripts.quote(group.toString()) + "; kill=" + (hasKill ? 1 : 0) + "\n" + REAPER;
	}

	/**
	 * End, at start-up, the groups that dead JVMs of this host left beside this JVM's
	 * (their owner is gone): every process in them and the groups themselves.
	 * @param terminateTimeout how long to wait after SIGTERM
	 * @return how many processes were in them
	 */
	int sweep(Duration terminateTimeout) {
		if (this.base == null) {
			return 0;
		}
		int processes = 0;
		List<Path> swept = new ArrayList<>();
		try (DirectoryStream<Path> groups = Files.newDirectoryStream(this.base, GROUP_PREFIX + "*")) {
			for (Path group : groups) {
				ProcessMarkers.Owner owner = ownerOf(group.getFileName().toString());
				if (owner == null || owner.equals(ProcessMarkers.Owner.current()) || owner.isAlive()) {
					continue;
				}
				Cgroup whole = new Cgroup("", group, this.hasKill);
				processes += whole.terminate(terminateTimeout).terminated();
				whole.awaitEmptyAndRemove();
				swept.add(group);
			}
		}
		catch (IOException | RuntimeException ex) {
			if (logger.isDebugEnabled()) {
				logger.debug("Could not sweep cgroups under " + this.base + ": " + ex.getMessage());
			}
		}
		if (processes > 0) {
			logger.warn("Ended " + processes + " processes left in the cgroups of dead JVMs " + swept);
		}
		return processes;
	}

	/** Read {@code mcp-stdio-<pid>-<start>}. */
	static ProcessMarkers.@Nullable Owner ownerOf(String groupName) {
		// without a dash there is no @, and parse refuses it
		return groupName.startsWith(GROUP_PREFIX)
				? ProcessMarkers.Owner.parse(groupName.substring(GROUP_PREFIX.length()).replaceFirst("-", "@"),
						ProcessMarkers.Owner.current().host())
				: null;
	}

}

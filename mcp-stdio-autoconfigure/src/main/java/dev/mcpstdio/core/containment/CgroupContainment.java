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
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.mcpstdio.core.process.JvmOwner;
import dev.mcpstdio.core.process.ProcReader;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Containment of servers in cgroups (v2), where this JVM may write the hierarchy (root,
 * or a subtree delegated by systemd): each server start gets a group of its own under one
 * group of this JVM ({@code <own cgroup>/mcp-stdio-<pid>-<start>/<instance>}), joined
 * before the server's command is executed, so that no process it starts can leave it.
 * Where the hierarchy is not writable there is no containment, and {@link #description()}
 * says why.
 *
 * @author mcp-stdio authors
 */
public final class CgroupContainment {

	private static final Log logger = LogFactory.getLog(CgroupContainment.class);

	/** The name of every JVM group starts with this, followed by its owner. */
	static final String GROUP_PREFIX = "mcp-stdio-";

	/**
	 * Guards this JVM's group, which every host of the JVM shares: no probe, creation or
	 * removal of it runs beside another.
	 */
	private static final Object JVM_GROUP_LOCK = new Object();

	private final @Nullable Path base;

	private final @Nullable Path jvmGroup;

	private final boolean hasKill;

	private final String description;

	private final @Nullable ProcReader proc;

	private CgroupContainment(@Nullable Path base, @Nullable Path jvmGroup, boolean hasKill, String description,
			@Nullable ProcReader proc) {
		this.base = base;
		this.proc = proc;
		this.jvmGroup = jvmGroup;
		this.hasKill = hasKill;
		this.description = description;
	}

	/**
	 * Probe which containment this JVM can use: a group of its own under its cgroup,
	 * where cgroup v2 is mounted and writable.
	 * @param proc the reader of {@code /proc}, for memory where the group does not count
	 * it
	 * @return the containment, possibly none
	 */
	public static CgroupContainment detect(ProcReader proc) {
		synchronized (JVM_GROUP_LOCK) {
			return detect(proc.path("self/mountinfo"), proc.path("self/cgroup"), JvmOwner.current(), proc);
		}
	}

	/**
	 * Return a containment that is off.
	 * @param why the reason, for {@link #description()}
	 * @return no containment
	 */
	public static CgroupContainment none(String why) {
		return new CgroupContainment(null, null, false,
				"none (" + why + "); servers are followed by process tree, session and markers", null);
	}

	static CgroupContainment detect(Path mountinfo, Path ownCgroup, JvmOwner owner, ProcReader proc) {
		if (!Files.isReadable(mountinfo) || !Files.isReadable(ownCgroup)) {
			return none("no /proc: not Linux");
		}
		Path mount;
		Path own;
		try {
			String[] v2 = cgroup2Mount(Files.readAllLines(mountinfo, StandardCharsets.UTF_8));
			if (v2 == null) {
				return none("cgroup v2 is not mounted");
			}
			mount = Path.of(v2[1]);
			String path = ownPath(Files.readAllLines(ownCgroup, StandardCharsets.UTF_8));
			if (path == null) {
				return none("this process is in no cgroup v2 group");
			}
			String root = v2[0];
			if (!root.equals("/") && (path.equals(root) || path.startsWith(root + "/"))) {
				path = path.substring(root.length());
			}
			own = mount.resolve(path.replaceFirst("^/+", ""));
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
		return new CgroupContainment(own, jvmGroup, hasKill,
				"cgroup v2: each server in its own group under " + jvmGroup + ", ended " + (hasKill ? "with cgroup.kill"
						: "by signalling every process in it (no cgroup.kill before Linux 5.14)"),
				proc);
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
		StringBuilder result = new StringBuilder();
		for (int i = 0; i < field.length(); i++) {
			char c = field.charAt(i);
			if (c == '\\' && i + 3 < field.length()) {
				result.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
				i += 3;
			}
			else {
				result.append(c);
			}
		}
		return result.toString();
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
		try {
			List<String> command = new ArrayList<>(ServerCgroup.ENTRY);
			command.add(child.toString());
			command.add("/bin/sh");
			command.add("-c");
			command.add("exit 0");
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			process.getOutputStream().close();
			if (!process.waitFor(5, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				return "joining a group took longer than 5s";
			}
			String output = new String(process.getInputStream().readNBytes(4096), StandardCharsets.UTF_8).strip();
			if (process.exitValue() != 0) {
				return "a process cannot join a group (" + output + ")";
			}
			return null;
		}
		catch (IOException ex) {
			return "cannot run /bin/sh (" + ex.getMessage() + ")";
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "interrupted";
		}
		finally {
			new ServerCgroup(child, false, null).awaitEmptyAndRemove();
		}
	}

	/**
	 * Return whether servers are contained in cgroups.
	 * @return whether {@link #create(String)} gives groups
	 */
	public boolean isAvailable() {
		return this.jvmGroup != null;
	}

	/**
	 * Say which containment is in use, for one line at start-up.
	 * @return the description
	 */
	public String description() {
		return this.description;
	}

	/**
	 * Return this JVM's group, the parent of every server group.
	 * @return the group, or {@code null} without containment
	 */
	public @Nullable Path jvmGroup() {
		return this.jvmGroup;
	}

	/**
	 * Create the group of one server start.
	 * @param instance the id of the start ({@code MCP_STDIO_INSTANCE}), which names the
	 * group
	 * @return the group, or {@code null} without containment or when it cannot be created
	 * (the server then runs uncontained)
	 */
	public @Nullable ServerCgroup create(String instance) {
		Path parent = this.jvmGroup;
		if (parent == null) {
			return null;
		}
		if (!instance.matches("[A-Za-z0-9_@-]+")) {
			throw new IllegalArgumentException("Not a group name: " + instance);
		}
		synchronized (JVM_GROUP_LOCK) {
			try {
				if (!Files.isDirectory(parent)) {
					Files.createDirectories(parent);
					enableMemoryController(parent);
				}
				Path group = Files.createDirectories(parent.resolve(instance));
				return new ServerCgroup(group, this.hasKill, this.proc);
			}
			catch (IOException | RuntimeException ex) {
				logger.warn("Could not create the cgroup of MCP server start " + instance + " under " + parent
						+ "; it runs uncontained: " + ex.getMessage());
				return null;
			}
		}
	}

	/**
	 * Let the server groups count their memory ({@code memory.current}) where the memory
	 * controller is available to this JVM's group; without it memory is summed from
	 * {@code /proc}.
	 */
	private static void enableMemoryController(Path group) {
		try {
			String controllers = Files.readString(group.resolve("cgroup.controllers"));
			if (List.of(controllers.strip().split(" ")).contains("memory")) {
				Files.writeString(group.resolve("cgroup.subtree_control"), "+memory");
			}
		}
		catch (IOException | RuntimeException ex) {
			// memory is then read from /proc
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
	 * Remove a server's group once it is empty, and this JVM's group when it was the
	 * last.
	 * @param group the group
	 * @return whether the server's group is gone
	 */
	public boolean remove(ServerCgroup group) {
		// outside the lock: other servers may start and stop meanwhile; only the JVM's
		// group must not go while a server group is being created in it
		boolean removed = group.awaitEmptyAndRemove();
		if (removed && this.jvmGroup != null) {
			synchronized (JVM_GROUP_LOCK) {
				try {
					Files.deleteIfExists(this.jvmGroup);
				}
				catch (IOException | RuntimeException ex) {
					// other servers still run
				}
			}
		}
		return removed;
	}

	Path base() {
		return this.base;
	}

	boolean hasKill() {
		return this.hasKill;
	}

}

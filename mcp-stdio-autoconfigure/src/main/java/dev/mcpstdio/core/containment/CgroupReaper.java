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
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

import org.jspecify.annotations.Nullable;

/**
 * The script that ends the cgroup of a JVM once it is gone, run by its orphan guard.
 *
 * @author mcp-stdio authors
 */
public final class CgroupReaper {

	private CgroupReaper() {
	}

	/**
	 * Write the script that the orphan guard runs once this JVM is gone:
	 * {@code sh <script> <graceMillis> <termMillis>} waits up to the grace for the JVM's
	 * group to empty, sends SIGTERM to every process left in it (frozen while they are
	 * read, so that no pid is reused under us), waits up to the second bound, kills the
	 * whole group and removes it.
	 * @param cgroups the containment in use
	 * @param file where to write it
	 * @return the file, or {@code null} without containment
	 * @throws IOException if it cannot be written
	 */
	public static @Nullable Path write(CgroupContainment cgroups, Path file) throws IOException {
		Path group = cgroups.jvmGroup();
		if (group == null) {
			return null;
		}
		Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
		Files.writeString(temporary, script(group, cgroups.hasKill()), StandardCharsets.UTF_8);
		Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rwx------"));
		return Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
	}

	static String script(Path group, boolean hasKill) {
		String quoted = "'" + group.toString().replace("'", "'\\''") + "'";
		return "# mcp-stdio: ends every process in the cgroup of a JVM that is gone; run by its orphan guard\n"
				+ "trap '' INT HUP TERM QUIT PIPE\n" + "g=" + quoted + "; grace=${1:-0}; term=${2:-0}; ms=0\n"
				+ """
						[ -d "$g" ] || exit 0
						now() {
						  if [ -r /proc/uptime ]; then read u r < /proc/uptime; ms=$(( ${u%.*} * 1000 + 1${u#*.} * 10 - 1000 )); fi
						}
						procs() { cat "$g"/cgroup.procs "$g"/*/cgroup.procs 2>/dev/null; }
						await() {
						  now; until=$((ms + $1))
						  while [ -n "$(procs)" ]; do
						    now; [ "$ms" -ge "$until" ] && return 1
						    sleep 0.05; [ -r /proc/uptime ] || ms=$((ms + 50))
						  done
						}
						signal() {
						  echo 1 > "$g/cgroup.freeze" 2>/dev/null
						  for p in $(procs); do kill -"$1" "$p" 2>/dev/null; done
						  echo 0 > "$g/cgroup.freeze" 2>/dev/null
						}
						await "$grace" || { signal TERM; await "$term"; } || {
						"""
				+ (hasKill ? "  echo 1 > \"$g/cgroup.kill\" 2>/dev/null\n" : "  signal KILL\n") + """
						  await 1000 || signal KILL
						  await 1000
						}
						for d in "$g"/*/; do [ -d "$d" ] && rmdir "$d" 2>/dev/null; done
						rmdir "$g" 2>/dev/null
						exit 0
						""";
	}

}

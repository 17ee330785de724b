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
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import dev.mcpstdio.core.process.JvmOwner;

/**
 * Writes the shell script that the orphan guard runs once this JVM is gone, to end its
 * containers through their engines: wait up to a grace for them to stop by themselves,
 * SIGTERM through the engine to those still running, wait, then {@code rm -f} every
 * container of this JVM. The script holds no secret: only the engine's own variables are
 * passed to it.
 *
 * @author mcp-stdio authors
 */
public final class ContainerReaper {

	/** The JVM's variables an engine's command-line interface reads. */
	private static final Set<String> ENGINE_VARIABLES = Set.of("PATH", "HOME", "USER", "LOGNAME", "TMPDIR",
			"XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "REGISTRY_AUTH_FILE");

	private static final List<String> ENGINE_VARIABLE_PREFIXES = List.of("DOCKER_", "CONTAINER_", "CONTAINERS_",
			"PODMAN_");

	private ContainerReaper() {
	}

	/**
	 * Write (or rewrite, atomically) the script for the engines this JVM has used.
	 * @param file where to write it, in a directory private to this user
	 * @param engines the engines
	 * @param owner this JVM
	 * @return the file
	 * @throws IOException if it cannot be written
	 */
	public static Path write(Path file, Collection<ContainerEngine> engines, JvmOwner owner) throws IOException {
		Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
		Files.writeString(temporary, script(engines, owner), StandardCharsets.UTF_8);
		try {
			Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rwx------"));
		}
		catch (UnsupportedOperationException ex) {
			// not POSIX: no guard either
		}
		return Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
	}

	static String script(Collection<ContainerEngine> engines, JvmOwner owner) {
		StringBuilder script = new StringBuilder();
		script.append("# mcp-stdio: ends the containers of JVM ")
			.append(owner.id())
			.append(" on ")
			.append(owner.host());
		script.append(" once it is gone; run by its orphan guard as: sh THIS graceMillis termMillis\n");
		script
			.append("""
					trap '' INT HUP TERM QUIT PIPE
					grace=${1:-0}; term=${2:-0}; ms=0
					now() {
					  if [ -r /proc/uptime ]; then read u r < /proc/uptime; ms=$(( ${u%.*} * 1000 + 1${u#*.} * 10 - 1000 )); fi
					}
					# every call of an engine is bounded where timeout(1) exists: a hung engine must not keep the guard
					bound=; command -v timeout >/dev/null 2>&1 && bound=timeout
					""");
		script.append("owned() { e=$1; shift; \"$e\" ps -a -q --no-trunc --filter ")
			.append(quote("label=" + ContainerLabels.OWNER + "=" + owner.id()))
			.append(" --filter ")
			.append(quote("label=" + ContainerLabels.OWNER_HOST + "=" + owner.host()))
			.append(" \"$@\" 2>/dev/null; }\n");
		script.append("""
				await() {
				  now; until=$((ms + $2))
				  while [ -n "$(owned "$1" --filter status=running)" ]; do
				    now; [ "$ms" -ge "$until" ] && return 1
				    sleep 0.2; [ -r /proc/uptime ] || ms=$((ms + 300))
				  done
				}
				reap() {
				  await "$1" "$grace" || {
				    "$1" kill --signal TERM $(owned "$1" --filter status=running) >/dev/null 2>&1
				    await "$1" "$term"
				  }
				  all=$(owned "$1")
				  [ -z "$all" ] || "$1" remove $all >/dev/null 2>&1
				}
				""");
		int n = 0;
		for (Map.Entry<List<String>, ContainerEngine> engine : distinct(engines).entrySet()) {
			n++;
			// "remove" stands for the engine's kill-and-remove subcommand
			script.append("engine").append(n).append("() { [ \"$1\" = remove ] && { shift; set --");
			for (String word : engine.getValue().removeCommand()) {
				script.append(' ').append(quote(word));
			}
			long seconds = Math.max(1, (engine.getValue().timeout().toMillis() + 999) / 1000);
			script.append(" \"$@\"; }; ${bound:+timeout -s KILL ").append(seconds).append("} env -i");
			for (String word : engine.getKey()) {
				script.append(' ').append(quote(word));
			}
			script.append(" \"$@\"; }\n");
		}
		for (int i = 1; i <= n; i++) {
			script.append("reap engine").append(i).append(" &\n");
		}
		script.append("wait\n");
		return script.toString();
	}

	/**
	 * Each engine once, by its variables, its executable and its global options.
	 */
	private static Map<List<String>, ContainerEngine> distinct(Collection<ContainerEngine> engines) {
		Map<List<String>, ContainerEngine> distinct = new LinkedHashMap<>();
		for (ContainerEngine engine : engines) {
			distinct.putIfAbsent(identity(engine), engine);
		}
		return distinct;
	}

	/**
	 * Return what the script runs an engine as: its variables, its executable and its
	 * global options. Two engines with the same identity are reaped once.
	 * @param engine the engine
	 * @return the identity
	 */
	public static List<String> identity(ContainerEngine engine) {
		List<String> command = new ArrayList<>();
		for (Map.Entry<String, String> variable : new TreeMap<>(engine.environment()).entrySet()) {
			if (isEngineVariable(variable.getKey())) {
				command.add(variable.getKey() + "=" + variable.getValue());
			}
		}
		command.addAll(engine.prefix());
		return command;
	}

	private static boolean isEngineVariable(String name) {
		if (ENGINE_VARIABLES.contains(name)) {
			return true;
		}
		for (String prefix : ENGINE_VARIABLE_PREFIXES) {
			if (name.startsWith(prefix)) {
				return true;
			}
		}
		return false;
	}

	static String quote(String word) {
		return "'" + word.replace("'", "'\\''") + "'";
	}

}

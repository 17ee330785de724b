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

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import dev.mcpstdio.core.tree.ProcessMarkers;

/**
 * The script the orphan guard runs once a JVM is gone to end its containers, through each
 * engine it used once.
 *
 * @author mcp-stdio authors
 */
final class ContainerReaper {

	/** The JVM's variables an engine's command-line interface reads. */
	private static final Set<String> ENGINE_VARIABLES = Set.of("PATH", "HOME", "USER", "LOGNAME", "TMPDIR",
			"XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "REGISTRY_AUTH_FILE");

	private static final List<String> ENGINE_VARIABLE_PREFIXES = List.of("DOCKER_", "CONTAINER_", "CONTAINERS_",
			"PODMAN_");

	private static final String REAPER = ReaperScripts.resource("reap-containers.sh");

	private ContainerReaper() {
	}

	/**
	 * Return the script that the orphan guard runs once a JVM is gone, to end its
	 * containers through each engine once. It holds no secret: only the engines' own
	 * variables are passed.
	 * @param engines the engines the JVM used
	 * @param owner the JVM
	 * @return the script
	 */
	static String script(Collection<ContainerEngine> engines, ProcessMarkers.Owner owner) {
		StringBuilder script = new StringBuilder("# mcp-stdio: ends the containers of JVM " + owner.id() + " on "
				+ owner.host() + " once it is gone; run by its orphan guard as: sh THIS graceMillis termMillis\n");
		script.append("owned() { e=$1; shift; \"$e\" ps -a -q --no-trunc --filter ")
			.append(ReaperScripts.quote("label=" + ContainerEngine.OWNER_LABEL + "=" + owner.id()))
			.append(" --filter ")
			.append(ReaperScripts.quote("label=" + ContainerEngine.OWNER_HOST_LABEL + "=" + owner.host()))
			.append(" \"$@\" 2>/dev/null; }\n");
		Map<List<String>, ContainerEngine> distinct = new LinkedHashMap<>();
		engines.forEach((engine) -> distinct.putIfAbsent(identity(engine), engine));
		List<String> names = new ArrayList<>();
		distinct.forEach((identity, engine) -> {
			names.add("engine" + (names.size() + 1));
			// "remove" stands for the engine's kill-and-remove subcommand
			script.append(names.get(names.size() - 1)).append("() { [ \"$1\" = remove ] && { shift; set --");
			engine.removeCommand().forEach((word) -> script.append(' ').append(ReaperScripts.quote(word)));
			long seconds = Math.max(1, (engine.timeout().toMillis() + 999) / 1000);
			script.append(" \"$@\"; }; ${bound:+timeout -s KILL ").append(seconds).append("} env -i");
			identity.forEach((word) -> script.append(' ').append(ReaperScripts.quote(word)));
			script.append(" \"$@\"; }\n");
		});
		script.append("engines='").append(String.join(" ", names)).append("'\n");
		return script.append(REAPER).toString();
	}

	/**
	 * Return what the reaper script runs an engine as: its variables, its executable and
	 * its global options. Two engines with the same identity are reaped and swept once.
	 * @param engine the engine
	 * @return the identity
	 */
	static List<String> identity(ContainerEngine engine) {
		List<String> command = new ArrayList<>();
		for (Map.Entry<String, String> variable : new TreeMap<>(engine.environment()).entrySet()) {
			String name = variable.getKey();
			if (ENGINE_VARIABLES.contains(name) || ENGINE_VARIABLE_PREFIXES.stream().anyMatch(name::startsWith)) {
				command.add(name + "=" + variable.getValue());
			}
		}
		command.addAll(engine.prefix());
		return command;
	}

}

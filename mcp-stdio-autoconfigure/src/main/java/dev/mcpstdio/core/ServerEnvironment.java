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

package dev.mcpstdio.core;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import dev.mcpstdio.core.process.Platform;
import dev.mcpstdio.core.process.ProcessMarkers;

/**
 * Builds the environment a server gets: a safe allow-list of the JVM's own variables (so
 * that the application's secrets do not reach servers), the configured variables, and the
 * process markers on top.
 *
 * @author mcp-stdio authors
 */
final class ServerEnvironment {

	private static final Set<String> UNIX_ALLOWED = Set.of("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG",
			"TMPDIR");

	private static final Set<String> WINDOWS_ALLOWED = Set.of("APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA",
			"PATH", "PATHEXT", "PROCESSOR_ARCHITECTURE", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "TMP", "USERNAME",
			"USERPROFILE", "PROGRAMFILES", "COMSPEC", "WINDIR");

	private ServerEnvironment() {
	}

	/**
	 * Return the environment for one start of a server.
	 * @param spec the server
	 * @param jvmEnvironment the JVM's environment
	 * @param instance the id of this start
	 * @param application the id of the application, for the start-up sweep
	 * @return the complete environment
	 */
	static Map<String, String> build(StdioServerSpec spec, Map<String, String> jvmEnvironment, String instance,
			String application) {
		Map<String, String> env = new LinkedHashMap<>();
		for (Map.Entry<String, String> entry : jvmEnvironment.entrySet()) {
			if (spec.inheritEnv() || isAllowed(entry.getKey())) {
				env.put(entry.getKey(), entry.getValue());
			}
		}
		env.putAll(spec.env());
		// Markers last: a configured value must not hide a process from the tree
		env.put(ProcessMarkers.SERVER, spec.name());
		env.put(ProcessMarkers.OWNER_PID, Long.toString(ProcessMarkers.CURRENT_PID));
		env.put(ProcessMarkers.INSTANCE, instance);
		env.put(ProcessMarkers.APPLICATION, application);
		return env;
	}

	static boolean isAllowed(String name) {
		if (Platform.current().isWindows()) {
			return WINDOWS_ALLOWED.contains(name.toUpperCase(Locale.ROOT));
		}
		return UNIX_ALLOWED.contains(name) || name.startsWith("LC_");
	}

}

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

import dev.mcpstdio.core.process.JvmOwner;
import org.jspecify.annotations.Nullable;

/**
 * One container of ours as the engine lists it.
 *
 * @param id its full id
 * @param server the server it runs
 * @param instance the start that made it
 * @param owner the JVM that started it, or {@code null} when its owner labels are not
 * readable
 * @param running whether it is running
 * @author mcp-stdio authors
 */
public record ContainerInfo(String id, String server, String instance, @Nullable JvmOwner owner, boolean running) {

	/** What Go templates print for a missing map key. */
	private static final String NO_VALUE = "<no value>";

	/**
	 * Read one line of {@code inspect --format} output: id, server, instance, owner,
	 * owner host and running, separated by {@code |}.
	 * @param line the line
	 * @return the container, or {@code null} for a line that is not one
	 */
	static @Nullable ContainerInfo parse(String line) {
		String[] fields = line.split("\\|", -1);
		if (fields.length != 6 || fields[0].isBlank()) {
			return null;
		}
		JvmOwner owner = JvmOwner.parse(value(fields[3]), value(fields[4]));
		String server = value(fields[1]);
		String instance = value(fields[2]);
		return new ContainerInfo(fields[0].strip(), (server != null) ? server : "", (instance != null) ? instance : "",
				owner, fields[5].strip().equals("true"));
	}

	private static @Nullable String value(String field) {
		String value = field.strip();
		return (value.isEmpty() || value.equals(NO_VALUE)) ? null : value;
	}

}

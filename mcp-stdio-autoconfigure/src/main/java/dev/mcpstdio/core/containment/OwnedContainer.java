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

import java.util.Objects;

import dev.mcpstdio.core.tree.ProcessMarkers;
import org.jspecify.annotations.Nullable;

/**
 * One container of ours as the engine lists it.
 *
 * @param id its full id
 * @param server the server it runs
 * @param instance the start that made it
 * @param owner the JVM that started it, {@code null} when its labels are not readable
 * @param running whether it is running
 * @author mcp-stdio authors
 */
record OwnedContainer(String id, String server, String instance, ProcessMarkers.@Nullable Owner owner,
		boolean running) {

	/** What {@code inspect} prints of one container, read by {@link #parse(String)}. */
	static final String LIST_FORMAT = "{{.Id}}|{{index .Config.Labels \"" + ContainerEngine.SERVER_LABEL
			+ "\"}}|{{index .Config.Labels \"" + ContainerEngine.INSTANCE_LABEL + "\"}}|{{index .Config.Labels \""
			+ ContainerEngine.OWNER_LABEL + "\"}}|{{index .Config.Labels \"" + ContainerEngine.OWNER_HOST_LABEL
			+ "\"}}|{{.State.Running}}";

	/**
	 * Read one line of {@link #LIST_FORMAT} output.
	 * @param line the line
	 * @return the container, or {@code null} for a line that is not one
	 */
	static @Nullable OwnedContainer parse(String line) {
		String[] fields = line.split("\\|", -1);
		if (fields.length != 6 || fields[0].isBlank()) {
			return null;
		}
		return new OwnedContainer(fields[0].strip(), Objects.requireNonNullElse(value(fields[1]), ""),
				Objects.requireNonNullElse(value(fields[2]), ""),
				ProcessMarkers.Owner.parse(value(fields[3]), value(fields[4])), fields[5].strip().equals("true"));
	}

	/** Go templates print {@code <no value>} for a missing label. */
	private static @Nullable String value(String field) {
		String value = field.strip();
		return (value.isEmpty() || value.equals("<no value>")) ? null : value;
	}

}

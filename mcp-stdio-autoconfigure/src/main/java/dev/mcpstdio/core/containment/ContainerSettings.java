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

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The {@code container.*} settings of one server.
 *
 * @author mcp-stdio authors
 */
public record ContainerSettings(boolean enabled, @Nullable String engineCommand, boolean init, Duration engineTimeout) {

	/**
	 * Create the settings.
	 * @param enabled whether a {@code docker run} or {@code podman run} command is
	 * recognised as a container server (labels, markers and a cidfile added; ended
	 * through the engine); {@code false} runs it as given, ended only through its process
	 * tree
	 * @param engineCommand the engine executable used to end, list and count the
	 * container, or {@code null} for the server's own command (with the same global
	 * options, such as {@code --context})
	 * @param init whether to add {@code --init} (unless the arguments already have it),
	 * so that the server does not run as PID 1: a server without a SIGTERM handler then
	 * ends on SIGTERM instead of waiting for the kill after {@code terminate-timeout}
	 * @param engineTimeout how long one call of the engine's command-line interface may
	 * take (kill, rm, ps, inspect)
	 */
	public ContainerSettings {
		Objects.requireNonNull(engineTimeout, "engineTimeout");
		if (engineTimeout.isNegative() || engineTimeout.isZero()) {
			throw new IllegalArgumentException("engineTimeout must be positive");
		}
		if (engineCommand != null && engineCommand.isBlank()) {
			engineCommand = null;
		}
	}

}

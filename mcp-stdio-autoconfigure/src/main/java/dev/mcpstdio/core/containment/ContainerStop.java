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

import org.jspecify.annotations.Nullable;

/**
 * What ending one container did.
 *
 * @param id the container
 * @param terminated whether SIGTERM was sent (it was running)
 * @param killed whether it was still running after {@code terminate-timeout} and was
 * killed by {@code rm -f}
 * @param removed whether it no longer exists at the end
 * @param took how long it took
 * @param error what the engine said when it could not remove the container
 * @author mcp-stdio authors
 */
public record ContainerStop(String id, boolean terminated, boolean killed, boolean removed, Duration took,
		@Nullable String error) {

}

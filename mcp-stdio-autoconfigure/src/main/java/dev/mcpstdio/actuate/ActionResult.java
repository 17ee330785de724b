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

package dev.mcpstdio.actuate;

import dev.mcpstdio.actuate.McpServersEndpoint.ActionFailure;
import dev.mcpstdio.actuate.McpServersEndpoint.McpServerDescriptor;
import org.jspecify.annotations.Nullable;

/**
 * What came of an action.
 *
 * @param outcome what came of it
 * @param message why it was not done, {@code null} when it was
 * @param server the server as it is now, when there is one (always when done)
 * @author mcp-stdio authors
 */
record ActionResult(ActionOutcome outcome, @Nullable String message, @Nullable McpServerDescriptor server) {

	ActionFailure failure() {
		return new ActionFailure(this.message, this.server);
	}

}

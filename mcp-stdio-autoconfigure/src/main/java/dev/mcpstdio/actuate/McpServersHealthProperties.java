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

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of the {@code mcpServers} health contributor
 * ({@link McpServersHealthIndicator}).
 *
 * @author mcp-stdio authors
 */
@ConfigurationProperties("management.health.mcpservers")
public class McpServersHealthProperties {

	/**
	 * Whether a server that is not required counts like a required one: FAILED turns the
	 * contributor DOWN and STOPPED or STOPPING turns it OUT_OF_SERVICE (HTTP 503 for the
	 * application's health). By default only required servers can; an optional one shows
	 * its state in the details only.
	 */
	private boolean countOptional = false;

	public boolean isCountOptional() {
		return this.countOptional;
	}

	public void setCountOptional(boolean countOptional) {
		this.countOptional = countOptional;
	}

}

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

package dev.mcpstdio.autoconfigure.actuate;

import java.util.HashSet;
import java.util.Set;

import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of the {@code mcpservers} endpoint and health contributor.
 *
 * @author mcp-stdio authors
 */
public final class McpServersProperties {

	private McpServersProperties() {
	}

	/**
	 * Configuration properties of the {@link McpServersEndpoint}, like those of Boot's
	 * {@code env} endpoint.
	 */
	@ConfigurationProperties("management.endpoint.mcpservers")
	public static class Endpoint {

		/**
		 * When to show the arguments of command lines and the stderr tails of exits
		 * (sanitized); otherwise they are withheld. Environment values are never shown.
		 */
		private Show showValues = Show.NEVER;

		/**
		 * Roles used to determine whether a user is authorized to be shown arguments and
		 * stderr tails. When empty, all authenticated users are authorized.
		 */
		private final Set<String> roles = new HashSet<>();

		public Show getShowValues() {
			return this.showValues;
		}

		public void setShowValues(Show showValues) {
			this.showValues = showValues;
		}

		public Set<String> getRoles() {
			return this.roles;
		}

	}

	/**
	 * Configuration properties of the {@code mcpServers} health contributor.
	 */
	@ConfigurationProperties("management.health.mcpservers")
	public static class Health {

		/**
		 * Whether a server that is not required counts like a required one: FAILED turns
		 * the contributor DOWN and STOPPED or STOPPING turns it OUT_OF_SERVICE (HTTP 503
		 * for the application's health). By default only required servers can; an
		 * optional one shows its state in the details only.
		 */
		private boolean countOptional = false;

		public boolean isCountOptional() {
			return this.countOptional;
		}

		public void setCountOptional(boolean countOptional) {
			this.countOptional = countOptional;
		}

	}

}

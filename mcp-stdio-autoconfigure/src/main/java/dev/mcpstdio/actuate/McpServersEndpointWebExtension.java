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

import java.util.Set;

import dev.mcpstdio.actuate.McpServersEndpoint.ActionResult;
import dev.mcpstdio.actuate.McpServersEndpoint.McpServerDescriptor;
import dev.mcpstdio.actuate.McpServersEndpoint.McpServersDescriptor;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * {@link EndpointWebExtension @EndpointWebExtension} for the {@link McpServersEndpoint}:
 * {@code show-values} decided per request ({@link Show#WHEN_AUTHORIZED} for an
 * authenticated user in one of the roles, when roles are configured), and the HTTP status
 * of each outcome: {@code 404} for an unknown server, {@code 400} for an unknown action,
 * {@code 409} for a start or restart of a disabled server and {@code 500} for an action
 * that failed.
 *
 * @author mcp-stdio authors
 */
@EndpointWebExtension(endpoint = McpServersEndpoint.class)
public class McpServersEndpointWebExtension {

	private static final int STATUS_CONFLICT = 409;

	private final McpServersEndpoint delegate;

	private final Show showValues;

	private final Set<String> roles;

	public McpServersEndpointWebExtension(McpServersEndpoint delegate, Show showValues, Set<String> roles) {
		this.delegate = delegate;
		this.showValues = showValues;
		this.roles = roles;
	}

	@ReadOperation
	public McpServersDescriptor servers(SecurityContext securityContext) {
		return this.delegate.serversDescriptor(this.showValues.isShown(securityContext, this.roles));
	}

	@ReadOperation
	public WebEndpointResponse<McpServerDescriptor> server(SecurityContext securityContext, @Selector String name) {
		McpServerDescriptor server = this.delegate.serverDescriptor(name,
				this.showValues.isShown(securityContext, this.roles));
		return (server != null) ? new WebEndpointResponse<>(server)
				: new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
	}

	/**
	 * Act on one server.
	 * @param securityContext the caller
	 * @param name the server
	 * @param action {@code restart}, {@code stop} or {@code start}
	 * @return the server after the action, or why it was not done
	 */
	@WriteOperation
	public WebEndpointResponse<Object> act(SecurityContext securityContext, @Selector String name, String action) {
		ActionResult result = this.delegate.perform(name, action, this.showValues.isShown(securityContext, this.roles));
		return switch (result.outcome()) {
			case DONE -> new WebEndpointResponse<>(result.descriptor());
			case UNKNOWN_SERVER -> new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
			case UNKNOWN_ACTION -> new WebEndpointResponse<>(result.failure(), WebEndpointResponse.STATUS_BAD_REQUEST);
			case CONFLICT -> new WebEndpointResponse<>(result.failure(), STATUS_CONFLICT);
			case FAILED ->
				new WebEndpointResponse<>(result.failure(), WebEndpointResponse.STATUS_INTERNAL_SERVER_ERROR);
		};
	}

}

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

import java.util.Map;
import java.util.Set;

import dev.mcpstdio.actuate.McpServersEndpoint.ActionFailure;
import dev.mcpstdio.actuate.McpServersEndpoint.McpServerDescriptor;
import dev.mcpstdio.actuate.McpServersEndpoint.McpServersDescriptor;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;
import org.springframework.util.ClassUtils;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.servlet.HandlerMapping;

/**
 * Web extension of the {@link McpServersEndpoint}: values shown per user, HTTP statuses.
 *
 * @author mcp-stdio authors
 */
@EndpointWebExtension(endpoint = McpServersEndpoint.class)
public class McpServersEndpointWebExtension {

	private static final int STATUS_CONFLICT = 409;

	private static final boolean SPRING_MVC_PRESENT = ClassUtils
		.isPresent("org.springframework.web.context.request.RequestContextHolder", null);

	private final McpServersEndpoint delegate;

	private final Show showValues;

	private final Set<String> roles;

	public McpServersEndpointWebExtension(McpServersEndpoint delegate, Show showValues, Set<String> roles) {
		this.delegate = delegate;
		this.showValues = showValues;
		this.roles = roles;
	}

	// Show.WHEN_AUTHORIZED shows the values to an authenticated user in one of the roles,
	// when roles are configured
	@ReadOperation
	public McpServersDescriptor servers(SecurityContext securityContext) {
		return this.delegate.descriptions().servers(this.showValues.isShown(securityContext, this.roles));
	}

	@ReadOperation
	public WebEndpointResponse<Object> server(SecurityContext securityContext, @Selector String name) {
		String notNamedByPath = notNamedByPath(name);
		if (notNamedByPath != null) {
			return badRequest(notNamedByPath);
		}
		McpServerDescriptor server = this.delegate.descriptions()
			.server(name, this.showValues.isShown(securityContext, this.roles));
		return (server != null) ? new WebEndpointResponse<>(server)
				: new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
	}

	/**
	 * Act on one server: {@code 404} for an unknown server, {@code 400} for an unknown
	 * action, {@code 409} for a start or restart of a disabled server and {@code 500} for
	 * an action that failed.
	 * @param securityContext the caller
	 * @param name the server
	 * @param action {@code restart}, {@code stop} or {@code start}
	 * @return the server after the action, or why it was not done
	 */
	@WriteOperation
	public WebEndpointResponse<Object> act(SecurityContext securityContext, @Selector String name, String action) {
		String notNamedByPath = notNamedByPath(name);
		if (notNamedByPath != null) {
			return badRequest(notNamedByPath);
		}
		ActionResult result = this.delegate.actions()
			.perform(name, action, this.showValues.isShown(securityContext, this.roles));
		return switch (result.outcome()) {
			case DONE -> new WebEndpointResponse<>(result.server());
			case UNKNOWN_SERVER -> new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
			case UNKNOWN_ACTION -> new WebEndpointResponse<>(result.failure(), WebEndpointResponse.STATUS_BAD_REQUEST);
			case CONFLICT -> new WebEndpointResponse<>(result.failure(), STATUS_CONFLICT);
			case FAILED ->
				new WebEndpointResponse<>(result.failure(), WebEndpointResponse.STATUS_INTERNAL_SERVER_ERROR);
		};
	}

	/**
	 * Reload the server set: {@code 400} for another action, {@code 409} while the
	 * application is stopping; a rejected reload is a {@code 200} whose {@code reload}
	 * says why.
	 * @param securityContext the caller
	 * @param action {@code reload}
	 * @return the servers after the reload, or why it was not done
	 */
	@WriteOperation
	public WebEndpointResponse<Object> reload(SecurityContext securityContext, String action) {
		boolean shown = this.showValues.isShown(securityContext, this.roles);
		ActionResult result = this.delegate.actions().reload(action);
		return switch (result.outcome()) {
			case DONE -> new WebEndpointResponse<>(this.delegate.descriptions().servers(shown));
			case CONFLICT -> new WebEndpointResponse<>(result.failure(), STATUS_CONFLICT);
			default -> new WebEndpointResponse<>(result.failure(), WebEndpointResponse.STATUS_BAD_REQUEST);
		};
	}

	private static WebEndpointResponse<Object> badRequest(String message) {
		return new WebEndpointResponse<>(new ActionFailure(message, null), WebEndpointResponse.STATUS_BAD_REQUEST);
	}

	/**
	 * Why the request does not name its server by its path alone: Boot merges the body
	 * and the query string over the path's variables, so a {@code name} there would
	 * select another server than the path (and than a security rule for that path).
	 * @param name the server the operation was given
	 * @return why, or {@code null} when the path names that server
	 */
	static @Nullable String notNamedByPath(String name) {
		// Spring MVC keeps the path's variables, as matched, in the request; Boot reads
		// them there before it merges the body and the query string over them
		RequestAttributes request = SPRING_MVC_PRESENT ? RequestContextHolder.getRequestAttributes() : null;
		Object variables = (request != null)
				? request.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE, RequestAttributes.SCOPE_REQUEST)
				: null;
		if (!(variables instanceof Map<?, ?> map) || !(map.get("name") instanceof String pathName)) {
			return "This web server does not show the endpoint which server the request's path names (Spring MVC"
					+ " does), so it cannot tell it from a 'name' in the body or query string: one server is served"
					+ " only over Spring MVC; GET /actuator/mcpservers lists them all";
		}
		if (!pathName.equals(name)) {
			return "The server is named by the path only; remove 'name' from the request's body and query string";
		}
		return null;
	}

}

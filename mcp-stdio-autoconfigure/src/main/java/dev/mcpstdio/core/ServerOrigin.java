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

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Where the user configured a server, so that advice names the user's own key.
 *
 * @author mcp-stdio authors
 */
public record ServerOrigin(String serverName, @Nullable String envProperty, @Nullable String file) {

	// The property of its env (mcp.stdio.servers.files.env,
	// spring.ai.mcp.client.stdio.connections.brave.env), or its entry in a servers file
	// (classpath:mcp.json mcpServers.files); its mcp-stdio settings are under
	// mcp.stdio.servers.<name> wherever its command line came from.

	public ServerOrigin {
		Objects.requireNonNull(serverName, "serverName");
		if ((envProperty == null) == (file == null)) {
			throw new IllegalArgumentException("Exactly one of envProperty and file must be given");
		}
	}

	/**
	 * Return the origin of a server configured under {@code mcp.stdio.servers}.
	 * @param serverName the server's name
	 * @return its origin
	 */
	public static ServerOrigin of(String serverName) {
		return property(serverName, serverProperty(serverName) + ".env");
	}

	/**
	 * Return the origin of a server configured by properties.
	 * @param serverName the server's name
	 * @param envProperty the property whose keys are its variables
	 * @return its origin
	 */
	public static ServerOrigin property(String serverName, String envProperty) {
		return new ServerOrigin(serverName, envProperty, null);
	}

	/**
	 * Return the origin of a server of a servers file.
	 * @param serverName the server's name
	 * @param file the file and its entry
	 * @return its origin
	 */
	public static ServerOrigin file(String serverName, String file) {
		return new ServerOrigin(serverName, null, file);
	}

	/**
	 * Say how the user passes a variable of the application to the server, in the form of
	 * where they configured it.
	 * @param variable the variable's name
	 * @return a property with a placeholder, or the {@code env} entry of the file
	 */
	public String passVariable(String variable) {
		if (this.envProperty != null) {
			return this.envProperty + "." + variable + "=${" + variable + "}";
		}
		return "\"env\": {\"" + variable + "\": \"${" + variable + "}\"} in " + this.file;
	}

	/**
	 * Return the property that gives the server the whole environment.
	 * @return {@code mcp.stdio.servers.<name>.inherit-env}
	 */
	public String inheritEnvProperty() {
		return serverProperty(this.serverName) + ".inherit-env";
	}

	/** A name with a dot is written in brackets, as Spring Boot binds it. */
	private static String serverProperty(String serverName) {
		return "mcp.stdio.servers." + (serverName.contains(".") ? "[" + serverName + "]" : serverName);
	}

}

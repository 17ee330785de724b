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

/**
 * The labels that make a container ours: which server, which start, which JVM on which
 * host. They let the orphan guard and the start-up sweep find the containers of a JVM
 * that is gone, through the engine, whatever became of their processes.
 *
 * @author mcp-stdio authors
 */
public final class ContainerLabels {

	/** Every label of ours starts with this; the user may not set one. */
	public static final String PREFIX = "dev.mcpstdio.";

	/** The server's name. */
	public static final String SERVER = PREFIX + "server";

	/** The start that made the container, as in {@code MCP_STDIO_INSTANCE}. */
	public static final String INSTANCE = PREFIX + "instance";

	/** The JVM that started it: {@link dev.mcpstdio.core.process.JvmOwner#id()}. */
	public static final String OWNER = PREFIX + "owner";

	/** The host of that JVM: a pid means nothing on another host. */
	public static final String OWNER_HOST = PREFIX + "owner-host";

	private ContainerLabels() {
	}

}

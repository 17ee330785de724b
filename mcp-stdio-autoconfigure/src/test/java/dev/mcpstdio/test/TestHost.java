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

package dev.mcpstdio.test;

import dev.mcpstdio.core.ServerHost;

/**
 * The hosts of the tests that need one with the defaults, or with the defaults but no
 * cgroups: each built on first use, for the whole test JVM. Their settings cannot change,
 * so tests cannot leak them into each other; a test that needs others builds its own host
 * and closes it.
 *
 * @author mcp-stdio authors
 */
public final class TestHost {

	private static final String APPLICATION = "mcp-stdio-tests";

	private TestHost() {
	}

	/**
	 * Return the host with the defaults.
	 * @return the host
	 */
	public static ServerHost shared() {
		return Shared.HOST;
	}

	/**
	 * Return a host whose servers get no cgroup: for the tests of what finds and ends a
	 * server's processes without it (the process tree, session and markers).
	 * @return the host
	 */
	public static ServerHost withoutCgroups() {
		return WithoutCgroups.HOST;
	}

	/**
	 * Return {@link #shared()}, or {@link #withoutCgroups()}.
	 * @param cgroups whether the servers get cgroups where the machine has them
	 * @return the host
	 */
	public static ServerHost of(boolean cgroups) {
		return cgroups ? shared() : withoutCgroups();
	}

	private static final class Shared {

		static final ServerHost HOST = ServerHost.builder().application(APPLICATION).build();

	}

	private static final class WithoutCgroups {

		static final ServerHost HOST = ServerHost.builder().application(APPLICATION).cgroups(false).build();

	}

}

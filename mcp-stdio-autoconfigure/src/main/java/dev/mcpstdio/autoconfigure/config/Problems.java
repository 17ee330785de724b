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

package dev.mcpstdio.autoconfigure.config;

import java.util.ArrayList;
import java.util.List;

import dev.mcpstdio.McpStdioConfigurationException;
import dev.mcpstdio.McpStdioConfigurationException.Problem;

/**
 * The collector of the configuration's problems: every error of one reading, each naming
 * its server and property, thrown at once.
 *
 * @author mcp-stdio authors
 */
final class Problems {

	private final List<Problem> problems = new ArrayList<>();

	/**
	 * Report a problem.
	 * @param server the server's name
	 * @param property the full property name
	 * @param problem what is wrong
	 * @param action how to fix it
	 */
	void add(String server, String property, String problem, String action) {
		this.problems.add(new Problem(server, property, problem, action));
	}

	/**
	 * Return whether a problem names the property.
	 * @param property the full property name
	 * @return whether it has a problem already
	 */
	boolean concern(String property) {
		return this.problems.stream().anyMatch((problem) -> problem.property().equals(property));
	}

	int size() {
		return this.problems.size();
	}

	boolean isEmpty() {
		return this.problems.isEmpty();
	}

	/**
	 * Throw the problems, when there are any.
	 * @throws McpStdioConfigurationException naming every problem
	 */
	void throwIfAny() {
		if (!this.problems.isEmpty()) {
			throw new McpStdioConfigurationException(this.problems);
		}
	}

}
